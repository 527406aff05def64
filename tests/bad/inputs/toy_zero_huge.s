.zero 0xffffffffffff
