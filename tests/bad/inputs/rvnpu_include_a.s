.include "rvnpu_include_b.s"
