.include "rvnpu_include_a.s"
