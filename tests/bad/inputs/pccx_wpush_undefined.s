.target pccx
.wpush W
