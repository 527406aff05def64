# Run as a script: embed the bytes of INPUT as a NUL-terminated C array named SYMBOL in OUTPUT.
#   cmake -DINPUT=file -DOUTPUT=file.c -DSYMBOL=name -P embed.cmake
file(READ "${INPUT}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "((0x..,){16})" "\\1\n" body "${body}")
file(WRITE "${OUTPUT}" "/* generated from ${INPUT} by cmake/embed.cmake */\n#include <stddef.h>\nconst char ${SYMBOL}[] = {\n${body}0x00};\nconst size_t ${SYMBOL}_len = sizeof ${SYMBOL} - 1;\n")
