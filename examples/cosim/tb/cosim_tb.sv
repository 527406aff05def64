// cosim_tb: the example's testbench. It loads a program into cosim_mem through the C side
// (cosim_dpi.c, which reads ELF files with npukit's npk_elf_segments), runs rv32im_core,
// answers its ECALLs (host syscalls: write, exit, brk) and counts every retirement. With
// +lockstep it runs npukit's rvnpu model beside the core through the DPI-C package npukit_dpi
// (sv/npukit_dpi.sv, installed as share/npukit/sv/npukit_dpi.sv): one npk_dpi_step per
// retirement, and the core's pc, instruction word, destination register and value and store
// are compared with npukit's commit record of that instruction (docs/commit-log.md).
//
// Plusargs: +elf=FILE (an ELF or a raw image, required)  +lockstep  +max-cycles=N (0 = none)
// Exit status: the program's exit code; 123 the core diverged from npukit (+lockstep);
// 124 the cycle budget ran out; 125 bad plusargs or program; 126 the core halted on a trap
// or an access outside RAM.
module cosim_tb;
    import npukit_dpi::*;

    localparam logic [31:0] RAM_BASE  = 32'h8000_0000;
    localparam int          RAM_BYTES = 4 * 1024 * 1024;  // rvnpu's default RAM size

    import "DPI-C" context function int cosim_load(input string path, input int lockstep,
                                                   input int ram_bytes, output int entry);
    import "DPI-C" function int cosim_image_word(input int index);
    import "DPI-C" context function void cosim_ecall(input longint cycle, input int pc,
        input int num, input int a0, input int a1, input int a2, input int a3, output int ret);
    import "DPI-C" function longint cosim_retire();
    import "DPI-C" function longint cosim_retired();
    import "DPI-C" function string cosim_where(input int pc);
    import "DPI-C" function void cosim_exit(input int status);
    import "DPI-C" function void cosim_halt(input longint cycle, input int cause, input int pc,
                                            input int insn, input int tval);
    import "DPI-C" function void cosim_fault(input longint cycle, input int we, input int addr,
                                             input int pc);
    import "DPI-C" function void cosim_budget(input longint cycles);
    import "DPI-C" function void cosim_usage(input string message);
    import "DPI-C" function longint cosim_count(input string text, input string what);
    import "DPI-C" function void cosim_args();

    // The C side reads guest buffers (write) through this.
    export "DPI-C" function tb_mem_byte;
    function int tb_mem_byte(input int addr);
        logic [31:0] off, w;
        off = addr - RAM_BASE;
        if (off >= 32'(RAM_BYTES)) return -1;
        w = u_mem.mem[off[21:2]];
        return {24'h0, w[8*off[1:0] +: 8]};
    endfunction

    // ---- lock-step with npukit (the DPI-C package) ------------------------------------------

    localparam int ST_DIVERGED = 123, ST_USAGE = 125;
    localparam int STDERR = 32'h8000_0002;
    localparam string XNAME[32] = '{"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1",
        "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8",
        "s9", "s10", "s11", "t3", "t4", "t5", "t6"};

    chandle gold = null;     // npukit's rvnpu (the golden model) with +lockstep, else null

    // One side of a retirement as the comparison sees it.
    typedef struct packed {
        logic [31:0] pc, insn;
        logic [4:0]  rd;          // 0: no register written
        logic [31:0] rd_value;
        logic [2:0]  wsize;       // 0: no store (else 1, 2 or 4 bytes)
        logic [31:0] waddr, wdata;
    } side_t;

    function automatic string pad(input string s, input int n);
        string r = s;
        while (r.len() < n) r = {r, " "};
        return r;
    endfunction

    function automatic void print_side(input string who, input side_t x, input string dis);
        string line;
        line = $sformatf("  %s pc 0x%08x%s  0x%08x  %s", pad(who, 7), x.pc, cosim_where(x.pc),
                         x.insn, pad(dis, 28));
        if (x.rd != 5'd0) line = {line, $sformatf("  %s <- 0x%08x", XNAME[x.rd], x.rd_value)};
        if (x.wsize == 3'd1) line = {line, $sformatf("  mem[0x%08x] <- 0x%02x (1 bytes)", x.waddr, x.wdata[7:0])};
        if (x.wsize == 3'd2) line = {line, $sformatf("  mem[0x%08x] <- 0x%04x (2 bytes)", x.waddr, x.wdata[15:0])};
        if (x.wsize == 3'd4) line = {line, $sformatf("  mem[0x%08x] <- 0x%08x (4 bytes)", x.waddr, x.wdata)};
        if (x.rd == 5'd0 && x.wsize == 3'd0) line = {line, "  (no register or memory write)"};
        $fdisplay(STDERR, "%s", line);
    endfunction

    // Both sides with their disassembly, npukit's whole record, and status 123.
    function automatic void diverged(input longint n, input longint cyc, input string what,
                                     input side_t core, input bit have_ref, input side_t npk);
        $fdisplay(STDERR, "cosim: MISMATCH at retirement %0d (cycle %0d): %s", n, cyc, what);
        print_side("core", core, npk_dpi_disasm(gold, longint'(core.pc), longint'(core.insn)));
        if (have_ref) begin
            print_side("npukit", npk, npk_dpi_commit_disasm(gold));
            $fdisplay(STDERR, "  (npukit's commit record: %s)", npk_dpi_commit_text(gold));
        end
        cosim_exit(ST_DIVERGED);
    endfunction

    function automatic void ref_failed(input string what);
        $fdisplay(STDERR, "cosim: npukit %s: %s", what, npk_dpi_error(gold));
        cosim_exit(ST_USAGE);
    endfunction

    // Start the reference: the same program, loaded by npukit itself; its guest output is
    // discarded (the core's is printed), its syscall results are compared through a0.
    function automatic void lockstep_start(input string path);
        gold = npk_dpi_create("rvnpu", $sformatf("ram_size=%0d", RAM_BYTES));
        if (npk_dpi_valid(gold) == 0) ref_failed("cannot create an rvnpu machine");
        if (npk_dpi_set_output(gold, "/dev/null", "/dev/null") != NPK_OK) ref_failed("output");
        if (npk_dpi_load_file(gold, path) != NPK_OK) ref_failed({"cannot load ", path});
    endfunction

    // npukit's side of the instruction it just stepped, from its commit record: the x register
    // it wrote (the core's port shows no other register) and its bus write.
    function automatic side_t ref_side();
        side_t x = '0;
        x.pc = 32'(npk_dpi_commit_pc(gold));
        x.insn = 32'(npk_dpi_commit_word(gold));
        for (int i = 0; i < npk_dpi_commit_effects(gold); i++) begin
            int kind;
            string name;
            kind = npk_dpi_effect_kind(gold, i);
            name = npk_dpi_effect_name(gold, i);
            if (kind == NPK_EFFECT_REG && name.len() >= 2 && name.substr(0, 0) == "x") begin
                x.rd = 5'(name.substr(1, name.len() - 1).atoi());
                x.rd_value = 32'(npk_dpi_effect_value(gold, i));
            end else if (kind == NPK_EFFECT_MEM && name == "bus" && x.wsize == 3'd0) begin
                x.wsize = 3'(npk_dpi_effect_size(gold, i));
                x.waddr = 32'(npk_dpi_effect_addr(gold, i));
                x.wdata = 32'(npk_dpi_effect_value(gold, i));
            end
        end
        return x;
    endfunction

    // One retirement of the core against one step of npukit.
    function automatic void lockstep_retire(input longint n, input longint cyc, input side_t core);
        side_t npk;
        int st;
        string what = "";
        st = npk_dpi_step(gold);
        if (st != NPK_OK) ref_failed("step");
        if (npk_dpi_stop_reason(gold) == NPK_STOP_FAULT)
            diverged(n, cyc, {"the core retired an instruction on which npukit stops: ",
                              npk_dpi_stop_message(gold)}, core, 0, core);
        if (npk_dpi_commit_count(gold) != 1) begin
            // npukit trapped into the program's handler (two records): the core took no trap
            void'(npk_dpi_commit_select(gold, 0));
            diverged(n, cyc, "npukit takes a trap here, the core retired the instruction", core,
                     1, ref_side());
        end
        npk = ref_side();
        // A host syscall's a0 is in the record only when it changed (docs/commit-log.md): an
        // ECALL whose result equals the a0 it had leaves it out, and a0 is read instead.
        if (npk.insn == 32'h0000_0073 && npk.rd == 5'd0 && core.rd == 5'd10) begin
            /* verilator lint_off UNUSEDSIGNAL */
            longint a0;  // x10 is 32 bits: the upper half is 0
            /* verilator lint_on UNUSEDSIGNAL */
            if (npk_dpi_reg_read(gold, "x10", a0) != NPK_OK) ref_failed("x10");
            npk.rd = 10;
            npk.rd_value = 32'(a0);
        end
        if (core.pc != npk.pc) what = "pc";
        else if (core.insn != npk.insn) what = "instruction word";
        else if (core.rd != npk.rd) what = "destination register";
        else if (core.rd != 5'd0 && core.rd_value != npk.rd_value) what = "destination register value";
        else if (core.wsize != npk.wsize || (core.wsize != 3'd0 && core.waddr != npk.waddr))
            what = "store address or size";
        else if (core.wsize == 3'd1 && core.wdata[7:0] != npk.wdata[7:0]) what = "store value";
        else if (core.wsize == 3'd2 && core.wdata[15:0] != npk.wdata[15:0]) what = "store value";
        else if (core.wsize == 3'd4 && core.wdata != npk.wdata) what = "store value";
        if (what != "") diverged(n, cyc, what, core, 1, npk);
    endfunction

    // The exit ECALL ends the run without retiring on the core: npukit must exit there too,
    // with the same code.
    function automatic void lockstep_exit(input longint n, input longint cyc, input logic [31:0] pc,
                                          input logic [31:0] code);
        side_t core = '0;
        side_t npk;
        int st;
        longint npk_pc;
        core.pc = pc;
        core.insn = 32'h0000_0073;
        st = npk_dpi_step(gold);
        if (st != NPK_OK) ref_failed("step");
        npk = ref_side();
        npk_pc = npk_dpi_commit_count(gold) != 0 ? npk_dpi_commit_pc(gold) : npk_dpi_stop_pc(gold);
        if (npk_dpi_stop_reason(gold) != NPK_STOP_EXIT || npk_pc != longint'(pc) ||
            npk_dpi_exit_code(gold) != longint'(signed'(code)))
            diverged(n, cyc, $sformatf("exit (core exit code %0d, npukit %s %0d)", signed'(code),
                                       npk_dpi_stop_reason(gold) == NPK_STOP_EXIT ? "exit code"
                                                                                 : "did not exit, code",
                                       npk_dpi_exit_code(gold)), core, 1, npk);
    endfunction

    logic        clk = 1'b0, rst = 1'b1;
    logic [31:0] entry;
    logic        mem_req, mem_we, mem_ready, mem_fault, mem_fault_we;
    logic [31:0] mem_addr, mem_wdata, mem_rdata, mem_fault_addr;
    logic [3:0]  mem_wstrb;
    logic        ecall_valid, ecall_done;
    logic [31:0] ecall_pc, ecall_num, ecall_a0, ecall_a1, ecall_a2, ecall_a3, ecall_ret;
    logic        ret_valid;
    logic [31:0] ret_pc, ret_insn, ret_rd_wdata, ret_mem_waddr, ret_mem_wdata;
    logic [4:0]  ret_rd;
    logic [2:0]  ret_mem_wsize;
    logic        halted;
    logic [3:0]  halt_cause;
    logic [31:0] halt_pc, halt_insn, halt_tval;

    rv32im_core #(.INIT_SP(RAM_BASE + RAM_BYTES - 16)) u_core (
        .clk, .rst, .reset_pc(entry),
        .mem_req, .mem_we, .mem_addr, .mem_wdata, .mem_wstrb, .mem_ready, .mem_rdata,
        .ecall_valid, .ecall_pc, .ecall_num, .ecall_a0, .ecall_a1, .ecall_a2, .ecall_a3,
        .ecall_done, .ecall_ret,
        .ret_valid, .ret_pc, .ret_insn, .ret_rd, .ret_rd_wdata,
        .ret_mem_wsize, .ret_mem_waddr, .ret_mem_wdata,
        .halted, .halt_cause, .halt_pc, .halt_insn, .halt_tval);

    cosim_mem #(.BASE(RAM_BASE), .RAM_BYTES(RAM_BYTES)) u_mem (
        .clk, .req(mem_req), .we(mem_we), .addr(mem_addr), .wdata(mem_wdata),
        .wstrb(mem_wstrb), .ready(mem_ready), .rdata(mem_rdata),
        .fault(mem_fault), .fault_we(mem_fault_we), .fault_addr(mem_fault_addr));

    longint max_cycles = 0, cycle = 0;

    initial begin
        string path, budget;
        int    lockstep, e;
        cosim_args();
        if (!$value$plusargs("elf=%s", path))
            cosim_usage("no program: give +elf=FILE (an rvnpu ELF or raw image; --help)");
        lockstep = $test$plusargs("lockstep") ? 1 : 0;
        if ($value$plusargs("max-cycles=%s", budget))
            max_cycles = cosim_count(budget, "+max-cycles=");
        void'(cosim_load(path, lockstep, RAM_BYTES, e));
        if (lockstep != 0) lockstep_start(path);
        entry = e;
        for (int i = 0; i < RAM_BYTES / 4; i++) u_mem.mem[i] = cosim_image_word(i);
        ecall_done = 1'b0;
        ecall_ret = 32'h0;
        repeat (2) @(posedge clk);
        rst = 1'b0;
    end

    /* verilator lint_off BLKSEQ */
    always #5 clk = ~clk;  // the only delay: a 10-unit clock period
    /* verilator lint_on BLKSEQ */

    always @(posedge clk) if (!rst) begin
        cycle <= cycle + 1;
        ecall_done <= 1'b0;
        if (ret_valid) begin
            longint n;
            n = cosim_retire();
            if (gold != null)
                lockstep_retire(n, cycle, '{pc: ret_pc, insn: ret_insn, rd: ret_rd,
                                            rd_value: ret_rd_wdata, wsize: ret_mem_wsize,
                                            waddr: ret_mem_waddr, wdata: ret_mem_wdata});
        end
        if (ecall_valid && !ecall_done) begin
            int r;
            if (gold != null && ecall_num == 32'd93) lockstep_exit(cosim_retired(), cycle, ecall_pc, ecall_a0);
            cosim_ecall(cycle, ecall_pc, ecall_num, ecall_a0, ecall_a1, ecall_a2, ecall_a3, r);
            ecall_ret <= r;
            ecall_done <= 1'b1;
        end
        if (halted)
            cosim_halt(cycle, {28'h0, halt_cause}, halt_pc, halt_insn, halt_tval);
        if (mem_fault)
            cosim_fault(cycle, {31'h0, mem_fault_we}, mem_fault_addr, u_core.pc);
        if (max_cycles != 0 && cycle >= max_cycles)
            cosim_budget(cycle);
    end
endmodule
