.include "no_such_file.s"
