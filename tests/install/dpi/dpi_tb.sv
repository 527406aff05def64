// A SystemVerilog testbench outside npukit that uses only the installed DPI-C package
// (share/npukit/sv/npukit_dpi.sv) and library, built with Verilator by tests/install
// (install_dpi). A toy program (sum 1..10) is stepped and its commit records, registers,
// memory, snapshots and error messages are checked; "PASS: ..." at the end, or a FAIL line per
// failed check and a non-zero exit.
module dpi_tb;
    import npukit_dpi::*;

    int fails = 0, checks = 0;
    function automatic void check(input bit ok, input string what);
        checks++;
        if (!ok) begin
            $display("FAIL: %s", what);
            fails++;
        end
    endfunction

    initial begin
        chandle h, bad, snap;
        longint v;
        int n;
        string src, e;

        bad = npk_dpi_create("nosuch", "");
        check(bad != null && npk_dpi_valid(bad) == 0, "a handle without a machine");
        e = npk_dpi_error(bad);
        check(e.substr(0, 22) == "unknown target 'nosuch'", $sformatf("create error: %s", e));
        check(npk_dpi_step(bad) == NPK_ERR_STATE, "step without a machine");
        npk_dpi_destroy(bad);

        h = npk_dpi_create("toy", "mem=4K");
        check(npk_dpi_valid(h) == 1, $sformatf("create toy: %s", npk_dpi_error(h)));
        check(npk_dpi_load_asm(h, "frob r1\n", "bad.s") == NPK_ERR_FORMAT, "bad source refused");
        e = npk_dpi_error(h);
        check(e.substr(0, 5) == "bad.s:", $sformatf("asm error: %s", e));
        src = {"        li   r1, 10\n", "        li   r2, 0\n", "loop:   add  r2, r2, r1\n",
               "        addi r1, r1, -1\n", "        bne  r1, r0, loop\n", "        exit r2\n"};
        check(npk_dpi_load_asm(h, src, "sum.s") == NPK_OK, $sformatf("load: %s", npk_dpi_error(h)));

        // record 1: li r1, 10 writes r1 = 10
        check(npk_dpi_step(h) == NPK_OK && npk_dpi_stop_reason(h) == NPK_STOP_NONE, "step 1");
        check(npk_dpi_commit_count(h) == 1 && npk_dpi_commit_seq(h) == 1, "one record, seq 1");
        check(npk_dpi_commit_pc(h) == 0 && npk_dpi_commit_word_bytes(h) == 4, "pc 0, 4 bytes");
        check(npk_dpi_commit_retired(h) == 1 && npk_dpi_commit_effects(h) == 1, "retired, 1 effect");
        check(npk_dpi_effect_kind(h, 0) == NPK_EFFECT_REG && npk_dpi_effect_name(h, 0) == "r1" &&
              npk_dpi_effect_bits(h, 0) == 32 && npk_dpi_effect_value(h, 0) == 10,
              "effect r1 = 10");
        check(npk_dpi_commit_disasm(h) == "li r1, 10", $sformatf("disasm '%s'", npk_dpi_commit_disasm(h)));
        v = npk_dpi_commit_word(h);
        check(npk_dpi_commit_text(h) == $sformatf("1 0x00000000 0x%08x r1=0x0000000a ; li r1, 10",
                                                  v[31:0]),
              $sformatf("text '%s'", npk_dpi_commit_text(h)));
        check(npk_dpi_disasm(h, 0, npk_dpi_commit_word(h)) == "li r1, 10", "disasm of a word");

        snap = npk_dpi_snapshot_save(h);
        check(snap != null, $sformatf("snapshot: %s", npk_dpi_error(h)));
        // the rest: li r2, 0, ten times add/addi/bne, exit r2: 32 more records
        n = 1;
        while (npk_dpi_stop_reason(h) == NPK_STOP_NONE && n < 100) begin
            void'(npk_dpi_step(h));
            n++;
        end
        check(n == 33, $sformatf("%0d instructions, expected 33", n));
        check(npk_dpi_stop_reason(h) == NPK_STOP_EXIT && npk_dpi_exit_code(h) == 55, "exit 55");
        check(npk_dpi_reg_read(h, "r2", v) == NPK_OK && v == 55, "r2 = 55");
        check(npk_dpi_commit_disasm(h) == "exit r2", "the last record is the exit");

        check(npk_dpi_snapshot_restore(h, snap) == NPK_OK, "restore");
        check(npk_dpi_reg_read(h, "pc", v) == NPK_OK && v == 4, "pc 4 after the restore");
        check(npk_dpi_snapshot_restore(h, h) == NPK_ERR_ARG, "a machine is not a snapshot");
        npk_dpi_snapshot_free(snap);
        // (each call its own statement: Verilator does not keep the order of calls within one
        // expression)
        n = npk_dpi_run(h, 0);
        check(n == NPK_OK && npk_dpi_exit_code(h) == 55, "run on to exit 55");

        check(npk_dpi_mem_write(h, "mem", 16, 4, 64'h1234_5678) == NPK_OK, "mem write");
        check(npk_dpi_mem_read(h, "mem", 16, 2, v) == NPK_OK && v == 64'h5678, "mem read");
        check(npk_dpi_mem_read(h, "mem", 4096, 4, v) == NPK_ERR_RANGE, "read outside the space");
        check(npk_dpi_reg_write(h, "r3", 7) == NPK_OK, "register write");
        check(npk_dpi_reg_read(h, "r3", v) == NPK_OK && v == 7, "register read");
        npk_dpi_destroy(h);

        if (fails != 0) $fatal(1, "%0d of %0d checks failed", fails, checks);
        $display("PASS: %0d checks of npukit_dpi %s from the installed package", checks,
                 npk_dpi_version());
        $finish;
    end
endmodule
