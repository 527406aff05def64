// cosim_tb: the example's testbench. It loads a program into cosim_mem through the C side
// (cosim_dpi.c, which reads ELF files with npukit's npk_elf_segments), runs rv32im_core,
// answers its ECALLs (host syscalls: write, exit, brk) and hands every retirement to the C
// side, which counts it and, with +lockstep, compares it with npukit's rvnpu model.
//
// Plusargs: +elf=FILE (an ELF or a raw image, required)  +lockstep  +max-cycles=N (0 = none)
// Exit status: the program's exit code; 123 the core diverged from npukit (+lockstep);
// 124 the cycle budget ran out; 125 bad plusargs or program; 126 the core halted on a trap
// or an access outside RAM.
module cosim_tb;
    localparam logic [31:0] RAM_BASE  = 32'h8000_0000;
    localparam int          RAM_BYTES = 4 * 1024 * 1024;  // rvnpu's default RAM size

    import "DPI-C" context function int cosim_load(input string path, input int lockstep,
                                                   input int ram_bytes, output int entry);
    import "DPI-C" function int cosim_image_word(input int index);
    import "DPI-C" context function void cosim_ecall(input longint cycle, input int pc,
        input int num, input int a0, input int a1, input int a2, input int a3, output int ret);
    import "DPI-C" function void cosim_retire(input longint cycle, input int pc, input int insn,
        input int rd, input int rd_value, input int wsize, input int waddr, input int wdata);
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
        if (ret_valid)
            cosim_retire(cycle, ret_pc, ret_insn, {27'h0, ret_rd}, ret_rd_wdata,
                         {29'h0, ret_mem_wsize}, ret_mem_waddr, ret_mem_wdata);
        if (ecall_valid && !ecall_done) begin
            int r;
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
