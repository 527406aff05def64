x: x: halt
