.target nosuch
halt
