.ascii "abc
