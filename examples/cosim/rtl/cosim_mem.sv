// cosim_mem: the example's memory model, a RAM of RAM_BYTES at BASE on the rv32im_core bus.
// A request is answered on the next clock edge (`ready` high for one cycle, read data with
// it); stores write the bytes whose strobes are set. An access outside the RAM is not
// carried out: `fault` goes high with the address and stays high (the testbench stops).
// The testbench fills the RAM before reset through `mem` (hierarchical access).
module cosim_mem #(
    parameter logic [31:0] BASE      = 32'h8000_0000,
    parameter int          RAM_BYTES = 4 * 1024 * 1024
) (
    input  logic        clk,
    input  logic        req,
    input  logic        we,
    input  logic [31:0] addr,
    input  logic [31:0] wdata,
    input  logic [3:0]  wstrb,
    output logic        ready,
    output logic [31:0] rdata,
    output logic        fault,
    output logic        fault_we,
    output logic [31:0] fault_addr
);
    localparam int WORDS = RAM_BYTES / 4;
    logic [31:0] mem [WORDS];

    localparam int AW = $clog2(WORDS);
    logic [31:0]   off;
    logic [AW-1:0] idx;
    logic          in_ram;
    assign off    = addr - BASE;
    assign idx    = off[AW+1:2];
    assign in_ram = off < 32'(RAM_BYTES);

    initial begin
        fault = 1'b0;
        fault_we = 1'b0;
        fault_addr = 32'h0;
    end

    always_ff @(posedge clk) begin
        ready <= 1'b0;
        if (req) begin
            if (!in_ram) begin
                fault      <= 1'b1;
                fault_we   <= we;
                fault_addr <= addr;
            end else begin
                ready <= 1'b1;
                rdata <= mem[idx];
                if (we) begin
                    if (wstrb[0]) mem[idx][7:0]   <= wdata[7:0];
                    if (wstrb[1]) mem[idx][15:8]  <= wdata[15:8];
                    if (wstrb[2]) mem[idx][23:16] <= wdata[23:16];
                    if (wstrb[3]) mem[idx][31:24] <= wdata[31:24];
                end
            end
        end
    end
endmodule
