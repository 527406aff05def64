# npk_embed(out_var symbol input): a generated C file holding the bytes of `input` as
# `const char symbol[]` and `const size_t symbol_len` (cmake/embed.cmake), appended to out_var.
# The CLI embeds its demo programs with it, src/model the rvnpu model firmware.
include_guard(GLOBAL)

function(npk_embed out_var symbol input)
  set(output ${CMAKE_CURRENT_BINARY_DIR}/${symbol}.c)
  add_custom_command(OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DINPUT=${input} -DOUTPUT=${output} -DSYMBOL=${symbol}
            -P ${PROJECT_SOURCE_DIR}/cmake/embed.cmake
    DEPENDS ${input} ${PROJECT_SOURCE_DIR}/cmake/embed.cmake
    COMMENT "Embedding ${input}")
  set(${out_var} ${${out_var}} ${output} PARENT_SCOPE)
endfunction()
