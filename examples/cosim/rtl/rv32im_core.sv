// rv32im_core: a small multi-cycle RV32IM core written for npukit's co-simulation example
// (examples/cosim). It runs the integer firmware of the rvnpu SDK: RV32I, M, FENCE/FENCE.I as
// no-ops and ECALL through a host handshake. It has no CSRs, no F extension, no NPU and no
// trap vector: every trap (illegal instruction, EBREAK, misaligned access or jump target)
// halts the core with a cause on `halt_cause`, which the testbench reports.
//
// One instruction at a time: 3 clock cycles, 4 for loads and stores, 5 for an ECALL:
//   FETCH  request the word at pc          FWAIT  wait for it, latch it in `ir`
//   EXEC   decode, read registers, compute; ALU/branch/jump instructions retire here,
//          loads and stores send their request, ECALL raises `ecall_valid`
//   MWAIT  wait for the load data or the store acknowledge, then retire
//   ECALL  wait for `ecall_done` from the host, write its result to a0, retire
//
// Memory bus: one request at a time. `mem_req` is high for one cycle with a word-aligned
// address; `mem_ready` answers in a later cycle (with `mem_rdata` for a read). Stores use
// byte strobes. Accesses must be naturally aligned (rvnpu also allows misaligned ones; this
// core halts on them instead, cause 4 or 6).
//
// Retirement port: `ret_valid` is high for one cycle per retired instruction, with its pc and
// word, the destination register (`ret_rd`, 0 when none is written) and its new value, and
// for a store the byte address, size (1, 2 or 4; 0 for no store) and the stored value
// (right-aligned). The register file update happens on the same clock edge.
//
// Planted bugs for the lock-step demonstration (define when verilating):
//   PLANT_BUG_SRA  SRA (register form) shifts in zeros, like SRL
//   PLANT_BUG_LH   LH zero-extends, like LHU
//   PLANT_BUG_SB   SB stores bits 15:8 of rs2 instead of bits 7:0
module rv32im_core #(
    parameter logic [31:0] INIT_SP = 32'h0  // x2 at reset (rvnpu: RAM base + size - 16)
) (
    input  logic        clk,
    input  logic        rst,
    input  logic [31:0] reset_pc,

    // memory bus
    output logic        mem_req,
    output logic        mem_we,
    output logic [31:0] mem_addr,
    output logic [31:0] mem_wdata,
    output logic [3:0]  mem_wstrb,
    input  logic        mem_ready,
    input  logic [31:0] mem_rdata,

    // ECALL handshake: the host reads a7 (number) and a0..a3, answers with the new a0
    output logic        ecall_valid,
    output logic [31:0] ecall_pc,
    output logic [31:0] ecall_num,
    output logic [31:0] ecall_a0,
    output logic [31:0] ecall_a1,
    output logic [31:0] ecall_a2,
    output logic [31:0] ecall_a3,
    input  logic        ecall_done,
    input  logic [31:0] ecall_ret,

    // retirement port
    output logic        ret_valid,
    output logic [31:0] ret_pc,
    output logic [31:0] ret_insn,
    output logic [4:0]  ret_rd,
    output logic [31:0] ret_rd_wdata,
    output logic [2:0]  ret_mem_wsize,
    output logic [31:0] ret_mem_waddr,
    output logic [31:0] ret_mem_wdata,

    // halt: the core stopped on a trap it cannot take (RISC-V mcause numbering)
    output logic        halted,
    output logic [3:0]  halt_cause,
    output logic [31:0] halt_pc,
    output logic [31:0] halt_insn,
    output logic [31:0] halt_tval
);
    typedef enum logic [2:0] {S_FETCH, S_FWAIT, S_EXEC, S_MWAIT, S_ECALL, S_HALT} state_t;

    localparam logic [6:0] OP_LUI = 7'b0110111, OP_AUIPC = 7'b0010111, OP_JAL = 7'b1101111,
        OP_JALR = 7'b1100111, OP_BRANCH = 7'b1100011, OP_LOAD = 7'b0000011,
        OP_STORE = 7'b0100011, OP_IMM = 7'b0010011, OP_OP = 7'b0110011,
        OP_MISC = 7'b0001111, OP_SYSTEM = 7'b1110011;

    state_t      state;
    logic [31:0] pc, ir;
    logic [31:0] rf [32];

    // ---- decode (of `ir`, meaningful in S_EXEC and S_MWAIT) ----
    logic [6:0]  opcode, funct7;
    logic [2:0]  funct3;
    logic [4:0]  rd, rs1, rs2;
    logic [31:0] rs1v, rs2v, imm_i, imm_s, imm_b, imm_u, imm_j;
    assign opcode = ir[6:0];
    assign rd     = ir[11:7];
    assign funct3 = ir[14:12];
    assign rs1    = ir[19:15];
    assign rs2    = ir[24:20];
    assign funct7 = ir[31:25];
    assign rs1v   = (rs1 == 5'd0) ? 32'h0 : rf[rs1];
    assign rs2v   = (rs2 == 5'd0) ? 32'h0 : rf[rs2];
    assign imm_i  = {{20{ir[31]}}, ir[31:20]};
    assign imm_s  = {{20{ir[31]}}, ir[31:25], ir[11:7]};
    assign imm_b  = {{19{ir[31]}}, ir[31], ir[7], ir[30:25], ir[11:8], 1'b0};
    assign imm_u  = {ir[31:12], 12'h0};
    assign imm_j  = {{11{ir[31]}}, ir[31], ir[19:12], ir[20], ir[30:21], 1'b0};

    // ---- ALU: OP-IMM and OP (including M) ----
    logic [31:0] alu_b, alu_out;
    logic        alu_illegal;
    logic [4:0]  shamt;
    // MULH and MULHSU use only the high halves of their products
    /* verilator lint_off UNUSEDSIGNAL */
    logic [63:0] prod_ss, prod_su;
    /* verilator lint_on UNUSEDSIGNAL */
    logic [63:0] prod_uu;
    assign alu_b   = (opcode == OP_OP) ? rs2v : imm_i;
    assign shamt   = alu_b[4:0];
    assign prod_ss = {{32{rs1v[31]}}, rs1v} * {{32{rs2v[31]}}, rs2v};
    assign prod_su = {{32{rs1v[31]}}, rs1v} * {32'h0, rs2v};
    assign prod_uu = {32'h0, rs1v} * {32'h0, rs2v};

    always_comb begin
        alu_out = 32'h0;
        alu_illegal = 1'b0;
        if (opcode == OP_OP && funct7 == 7'b0000001) begin
            case (funct3)
                3'b000: alu_out = prod_uu[31:0];
                3'b001: alu_out = prod_ss[63:32];
                3'b010: alu_out = prod_su[63:32];
                3'b011: alu_out = prod_uu[63:32];
                3'b100: alu_out = (rs2v == 0) ? 32'hffff_ffff
                                : (rs1v == 32'h8000_0000 && rs2v == 32'hffff_ffff) ? rs1v
                                : $signed(rs1v) / $signed(rs2v);
                3'b101: alu_out = (rs2v == 0) ? 32'hffff_ffff : rs1v / rs2v;
                3'b110: alu_out = (rs2v == 0) ? rs1v
                                : (rs1v == 32'h8000_0000 && rs2v == 32'hffff_ffff) ? 32'h0
                                : $signed(rs1v) % $signed(rs2v);
                default: alu_out = (rs2v == 0) ? rs1v : rs1v % rs2v;
            endcase
        end else begin
            // OP needs funct7 0000000, or 0100000 for SUB/SRA; OP-IMM shifts need the same
            // on ir[31:25] (rvnpu: a shift-immediate with bit 25 set is illegal)
            if (opcode == OP_OP)
                alu_illegal = !(funct7 == 7'b0000000 ||
                                (funct7 == 7'b0100000 && (funct3 == 3'b000 || funct3 == 3'b101)));
            else if (funct3 == 3'b001)
                alu_illegal = funct7 != 7'b0000000;
            else if (funct3 == 3'b101)
                alu_illegal = !(funct7 == 7'b0000000 || funct7 == 7'b0100000);
            case (funct3)
                3'b000: alu_out = (opcode == OP_OP && funct7[5]) ? rs1v - alu_b : rs1v + alu_b;
                3'b001: alu_out = rs1v << shamt;
                3'b010: alu_out = {31'h0, $signed(rs1v) < $signed(alu_b)};
                3'b011: alu_out = {31'h0, rs1v < alu_b};
                3'b100: alu_out = rs1v ^ alu_b;
                3'b101: begin
                    if (funct7[5]) begin
`ifdef PLANT_BUG_SRA
                        alu_out = (opcode == OP_OP) ? rs1v >> shamt
                                                    : 32'($signed(rs1v) >>> shamt);
`else
                        alu_out = 32'($signed(rs1v) >>> shamt);
`endif
                    end else
                        alu_out = rs1v >> shamt;
                end
                3'b110: alu_out = rs1v | alu_b;
                default: alu_out = rs1v & alu_b;
            endcase
        end
    end

    // ---- branches, jumps, memory addresses ----
    logic        br_taken, br_illegal;
    always_comb begin
        br_illegal = 1'b0;
        case (funct3)
            3'b000: br_taken = rs1v == rs2v;
            3'b001: br_taken = rs1v != rs2v;
            3'b100: br_taken = $signed(rs1v) < $signed(rs2v);
            3'b101: br_taken = $signed(rs1v) >= $signed(rs2v);
            3'b110: br_taken = rs1v < rs2v;
            3'b111: br_taken = rs1v >= rs2v;
            default: begin br_taken = 1'b0; br_illegal = 1'b1; end
        endcase
    end

    logic [31:0] pc4, jal_target, jalr_target, br_target, ls_addr;
    assign pc4         = pc + 32'd4;
    assign jal_target  = pc + imm_j;
    assign jalr_target = (rs1v + imm_i) & ~32'h1;
    assign br_target   = pc + imm_b;
    assign ls_addr     = rs1v + ((opcode == OP_STORE) ? imm_s : imm_i);

    // access size in bytes (0 = illegal funct3) and alignment
    logic [2:0]  ls_size;
    always_comb begin
        case (funct3[1:0])
            2'b00:   ls_size = 3'd1;
            2'b01:   ls_size = 3'd2;
            2'b10:   ls_size = 3'd4;
            default: ls_size = 3'd0;
        endcase
        if (opcode == OP_STORE && funct3[2]) ls_size = 3'd0;
        if (opcode == OP_LOAD && funct3 == 3'b110) ls_size = 3'd0;
    end
    logic ls_misaligned;
    assign ls_misaligned = (ls_size == 3'd2 && ls_addr[0]) || (ls_size == 3'd4 && ls_addr[1:0] != 2'b00);

    logic [31:0] st_val;   // the value a store writes, right-aligned
    logic [31:0] st_data;
    logic [3:0]  st_strb;
`ifdef PLANT_BUG_SB
    assign st_val = (ls_size == 3'd1) ? {24'h0, rs2v[15:8]} : rs2v;
`else
    assign st_val = rs2v;
`endif
    always_comb begin
        st_data = st_val << {ls_addr[1:0], 3'b000};
        case (ls_size)
            3'd1:    st_strb = 4'b0001 << ls_addr[1:0];
            3'd2:    st_strb = 4'b0011 << ls_addr[1:0];
            default: st_strb = 4'b1111;
        endcase
    end

    // load result from the returned word (MWAIT; `ls_addr` is still valid: rs1 and ir unchanged)
    /* verilator lint_off UNUSEDSIGNAL */
    logic [31:0] ld_shifted;  // bits 31:16 are not needed (a word load uses mem_rdata)
    /* verilator lint_on UNUSEDSIGNAL */
    logic [31:0] ld_value;
    assign ld_shifted = mem_rdata >> {ls_addr[1:0], 3'b000};
    always_comb begin
        case (funct3)
            3'b000: ld_value = {{24{ld_shifted[7]}}, ld_shifted[7:0]};
`ifdef PLANT_BUG_LH
            3'b001: ld_value = {16'h0, ld_shifted[15:0]};
`else
            3'b001: ld_value = {{16{ld_shifted[15]}}, ld_shifted[15:0]};
`endif
            3'b100: ld_value = {24'h0, ld_shifted[7:0]};
            3'b101: ld_value = {16'h0, ld_shifted[15:0]};
            default: ld_value = mem_rdata;
        endcase
    end

    // ---- the ECALL port shows the registers while waiting ----
    assign ecall_valid = state == S_ECALL;
    assign ecall_pc    = pc;
    assign ecall_num   = rf[17];
    assign ecall_a0    = rf[10];
    assign ecall_a1    = rf[11];
    assign ecall_a2    = rf[12];
    assign ecall_a3    = rf[13];
    assign halted      = state == S_HALT;

    // ---- memory requests are combinational from the state ----
    always_comb begin
        mem_req   = 1'b0;
        mem_we    = 1'b0;
        mem_addr  = {pc[31:2], 2'b00};
        mem_wdata = st_data;
        mem_wstrb = 4'b0000;
        if (rst) begin
            mem_req = 1'b0;
        end else if (state == S_FETCH) begin
            mem_req = 1'b1;
        end else if (state == S_EXEC && (opcode == OP_LOAD || opcode == OP_STORE) &&
                     ls_size != 3'd0 && !ls_misaligned) begin
            mem_req   = 1'b1;
            mem_we    = opcode == OP_STORE;
            mem_addr  = {ls_addr[31:2], 2'b00};
            mem_wstrb = (opcode == OP_STORE) ? st_strb : 4'b0000;
        end
    end

    // ---- the sequencer ----
    task automatic retire(input logic [31:0] next_pc, input logic [4:0] wr, input logic [31:0] val);
        ret_valid    <= 1'b1;
        ret_pc       <= pc;
        ret_insn     <= ir;
        ret_rd       <= wr;
        ret_rd_wdata <= (wr == 5'd0) ? 32'h0 : val;
        if (wr != 5'd0) rf[wr] <= val;
        pc    <= next_pc;
        state <= S_FETCH;
    endtask

    task automatic halt(input logic [3:0] cause, input logic [31:0] tval);
        halt_cause <= cause;
        halt_pc    <= pc;
        halt_insn  <= ir;
        halt_tval  <= tval;
        state      <= S_HALT;
    endtask

    always_ff @(posedge clk) begin
        ret_valid     <= 1'b0;
        ret_mem_wsize <= 3'd0;
        if (rst) begin
            state <= S_FETCH;
            pc    <= reset_pc;
            ir    <= 32'h0;
            for (int i = 0; i < 32; i++) rf[i] <= (i == 2) ? INIT_SP : 32'h0;
            halt_cause <= 4'd0;
            halt_pc    <= 32'h0;
            halt_insn  <= 32'h0;
            halt_tval  <= 32'h0;
        end else begin
            case (state)
                S_FETCH: state <= S_FWAIT;
                S_FWAIT: if (mem_ready) begin
                    ir    <= mem_rdata;
                    state <= S_EXEC;
                end
                S_EXEC: begin
                    case (opcode)
                        OP_LUI:   retire(pc4, rd, imm_u);
                        OP_AUIPC: retire(pc4, rd, pc + imm_u);
                        OP_JAL:
                            if (jal_target[1:0] != 2'b00) halt(4'd0, jal_target);
                            else retire(jal_target, rd, pc4);
                        OP_JALR:
                            if (funct3 != 3'b000) halt(4'd2, ir);
                            else if (jalr_target[1:0] != 2'b00) halt(4'd0, jalr_target);
                            else retire(jalr_target, rd, pc4);
                        OP_BRANCH:
                            if (br_illegal) halt(4'd2, ir);
                            else if (br_taken && br_target[1:0] != 2'b00) halt(4'd0, br_target);
                            else retire(br_taken ? br_target : pc4, 5'd0, 32'h0);
                        OP_IMM, OP_OP:
                            if (alu_illegal) halt(4'd2, ir);
                            else retire(pc4, rd, alu_out);
                        OP_LOAD, OP_STORE:
                            if (ls_size == 3'd0) halt(4'd2, ir);
                            else if (ls_misaligned) halt(opcode == OP_LOAD ? 4'd4 : 4'd6, ls_addr);
                            else state <= S_MWAIT;
                        OP_MISC:
                            if (funct3[2:1] != 2'b00) halt(4'd2, ir);
                            else retire(pc4, 5'd0, 32'h0);
                        OP_SYSTEM:
                            if (ir == 32'h0000_0073) state <= S_ECALL;
                            else if (ir == 32'h0010_0073) halt(4'd3, pc);
                            else halt(4'd2, ir);
                        default: halt(4'd2, ir);
                    endcase
                end
                S_MWAIT: if (mem_ready) begin
                    if (opcode == OP_LOAD) begin
                        retire(pc4, rd, ld_value);
                    end else begin
                        retire(pc4, 5'd0, 32'h0);
                        ret_mem_wsize <= ls_size;
                        ret_mem_waddr <= ls_addr;
                        ret_mem_wdata <= (ls_size == 3'd1) ? {24'h0, st_val[7:0]}
                                       : (ls_size == 3'd2) ? {16'h0, st_val[15:0]} : st_val;
                    end
                end
                S_ECALL: if (ecall_done) retire(pc4, 5'd10, ecall_ret);
                default: ;  // S_HALT: stay
            endcase
        end
    end
endmodule
