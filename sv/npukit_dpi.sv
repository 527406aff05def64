// npukit_dpi: npukit as a golden model in a SystemVerilog testbench, through DPI-C.
// Each import is one function of libnpukit's C side (include/npukit/dpi.h); link the
// testbench with libnpukit (-lnpukit -lm). docs/dpi.md describes the calls; in short:
//
//   import npukit_dpi::*;
//   chandle h = npk_dpi_create("rvnpu", "ram_size=4M");
//   if (!npk_dpi_valid(h) || npk_dpi_load_file(h, "fw.elf") != NPK_OK)
//       $fatal(1, "npukit: %s", npk_dpi_error(h));
//   // at every retirement of the design:
//   void'(npk_dpi_step(h));  // then npk_dpi_commit_pc(h), npk_dpi_effect_*(h, i), ...
//
// Handles are chandles, text is string; statuses are the NPK_* values below (0 = NPK_OK).
package npukit_dpi;
    // (a testbench uses some of these constants: Verilator's -Wall need not list the others)
    /* verilator lint_off UNUSEDPARAM */
    // npk_status
    localparam int NPK_OK = 0, NPK_ERR_ARG = 1, NPK_ERR_NOMEM = 2, NPK_ERR_IO = 3,
                   NPK_ERR_FORMAT = 4, NPK_ERR_RANGE = 5, NPK_ERR_UNSUPPORTED = 6,
                   NPK_ERR_STATE = 7;
    // npk_stop_reason
    localparam int NPK_STOP_NONE = 0, NPK_STOP_EXIT = 1, NPK_STOP_BUDGET = 2, NPK_STOP_FAULT = 3;
    // npk_effect_kind
    localparam int NPK_EFFECT_REG = 1, NPK_EFFECT_MEM = 2, NPK_EFFECT_TRAP = 3;
    /* verilator lint_on UNUSEDPARAM */

    import "DPI-C" function string  npk_dpi_version();

    // lifecycle
    import "DPI-C" function chandle npk_dpi_create(input string spec, input string settings);
    import "DPI-C" function int     npk_dpi_valid(input chandle h);
    import "DPI-C" function void    npk_dpi_destroy(input chandle h);
    import "DPI-C" function string  npk_dpi_error(input chandle h);
    import "DPI-C" function int     npk_dpi_reset(input chandle h);
    import "DPI-C" function int     npk_dpi_set_output(input chandle h, input string out_path,
                                                       input string err_path);
    // loading
    import "DPI-C" function int     npk_dpi_load_file(input chandle h, input string path);
    import "DPI-C" function int     npk_dpi_load_raw(input chandle h, input string path,
                                                     input longint addr);
    import "DPI-C" function int     npk_dpi_load_asm(input chandle h, input string source,
                                                     input string name);
    // running
    import "DPI-C" function int     npk_dpi_step(input chandle h);
    import "DPI-C" function int     npk_dpi_run(input chandle h, input longint max_insns);
    import "DPI-C" function int     npk_dpi_stop_reason(input chandle h);
    import "DPI-C" function longint npk_dpi_exit_code(input chandle h);
    import "DPI-C" function longint npk_dpi_stop_pc(input chandle h);
    import "DPI-C" function string  npk_dpi_stop_message(input chandle h);
    // commit records of the last step
    import "DPI-C" function int     npk_dpi_commit_enable(input chandle h, input int on);
    import "DPI-C" function int     npk_dpi_commit_count(input chandle h);
    import "DPI-C" function int     npk_dpi_commit_select(input chandle h, input int i);
    import "DPI-C" function longint npk_dpi_commit_seq(input chandle h);
    import "DPI-C" function longint npk_dpi_commit_cycle(input chandle h);
    import "DPI-C" function longint npk_dpi_commit_pc(input chandle h);
    import "DPI-C" function longint npk_dpi_commit_word(input chandle h);
    import "DPI-C" function int     npk_dpi_commit_word_bytes(input chandle h);
    import "DPI-C" function int     npk_dpi_commit_word_byte(input chandle h, input int k);
    import "DPI-C" function int     npk_dpi_commit_retired(input chandle h);
    import "DPI-C" function int     npk_dpi_commit_effects(input chandle h);
    import "DPI-C" function string  npk_dpi_commit_disasm(input chandle h);
    import "DPI-C" function string  npk_dpi_commit_text(input chandle h);
    import "DPI-C" function int     npk_dpi_effect_kind(input chandle h, input int i);
    import "DPI-C" function string  npk_dpi_effect_name(input chandle h, input int i);
    import "DPI-C" function int     npk_dpi_effect_bits(input chandle h, input int i);
    import "DPI-C" function longint npk_dpi_effect_addr(input chandle h, input int i);
    import "DPI-C" function longint npk_dpi_effect_size(input chandle h, input int i);
    import "DPI-C" function longint npk_dpi_effect_value(input chandle h, input int i);
    import "DPI-C" function int     npk_dpi_effect_byte(input chandle h, input int i,
                                                        input longint k);
    import "DPI-C" function int     npk_dpi_effect_find(input chandle h, input int kind,
                                                        input string name);
    // state
    import "DPI-C" function int     npk_dpi_reg_read(input chandle h, input string name,
                                                     output longint value);
    import "DPI-C" function int     npk_dpi_reg_write(input chandle h, input string name,
                                                      input longint value);
    import "DPI-C" function int     npk_dpi_mem_read(input chandle h, input string space,
                                                     input longint addr, input int size,
                                                     output longint value);
    import "DPI-C" function int     npk_dpi_mem_write(input chandle h, input string space,
                                                      input longint addr, input int size,
                                                      input longint value);
    import "DPI-C" function int     npk_dpi_symbol(input chandle h, input string name,
                                                   output longint value);
    import "DPI-C" function string  npk_dpi_disasm(input chandle h, input longint pc,
                                                   input longint word);
    // snapshots
    import "DPI-C" function chandle npk_dpi_snapshot_save(input chandle h);
    import "DPI-C" function int     npk_dpi_snapshot_restore(input chandle h, input chandle snapshot);
    import "DPI-C" function void    npk_dpi_snapshot_free(input chandle snapshot);
    import "DPI-C" function int     npk_dpi_snapshot_save_file(input chandle h, input string path);
    import "DPI-C" function int     npk_dpi_snapshot_restore_file(input chandle h,
                                                                  input string path);
endpackage
