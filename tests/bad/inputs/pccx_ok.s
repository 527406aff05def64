.target pccx
