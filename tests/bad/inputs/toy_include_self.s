.include "toy_include_self.s"
