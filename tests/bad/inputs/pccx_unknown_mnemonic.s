.target pccx
    frob dst=1
