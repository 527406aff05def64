frob a0
