/* rvnpu: the semantics of the RV32I/M/F instructions, written once as an X-macro list.
 *
 * exec.c includes this file twice: as `case`s of exec_one() (the observed loop and the slow
 * path) and as the handlers of the threaded fast loop. Each includer defines RVOP(NAME, ...)
 * (the body is the variadic part, so it may contain commas)
 * and the operand/effect macros the bodies use:
 *
 *   A, B        x[rs1], x[rs2]             F1, F2, F3  f[rs1], f[rs2], f[rs3] (raw bits)
 *   IMM         the decoded immediate      PC          address of this instruction
 *   WX(v)       x[rd] = v (rd is a scratch register for x0, see rvnpu_decoded)
 *   WF(v)       f[rd] = v
 *   LOAD(v, n, ext)  v = the n-byte value at x[rs1] + imm, ext = 'u' zero- or 's' sign-extended
 *   STORE(n, v)      store the low n bytes of v at x[rs1] + imm
 *   JCHECK(t)   the jump target t is acceptable (misaligned: exception 0)
 *   JUMP(t)     the next pc is t (a taken jump/branch; always the last statement of a body)
 *   JREL_CHECK(o), JUMP_REL(o)  the same for the target PC + o
 *   FP_RM(rm)   rm = the effective rounding mode (reserved: illegal instruction)
 *   FP_FLAGS(e) accrue the flags of npk_fenv e into fflags
 *
 * A body changes no state before the checks that can stop it (loads and stores check their
 * address before writing a register or memory, jumps check their target before writing rd),
 * so the fast loop may hand any instruction it cannot finish to exec_one() to do again.
 * Instructions not listed here (ECALL, EBREAK, MRET, Zicsr, the NPU, illegal words) are
 * written in exec_one() only and always take the slow path. Every rounding, flag and NaN rule
 * of F is src/num's (the fused multiply-adds through src/num/hostfp.h, which computes the
 * common RNE case on the host FPU with identical results and flags). */

#define RVOP_BRANCH(cond)                                                                     \
    {                                                                                         \
        if (cond)                                                                             \
            JUMP_REL(IMM);                                                                    \
    }

/* an F computation in the instruction's rounding mode: `stmt` uses the environment e_, whose
 * flags accrue into fflags afterwards */
#define RVOP_FENV(stmt)                                                                       \
    {                                                                                         \
        int rm_;                                                                              \
        FP_RM(rm_);                                                                           \
        npk_fenv e_;                                                                          \
        npk_fenv_init(&e_, (npk_rm)rm_);                                                      \
        stmt;                                                                                 \
        FP_FLAGS(e_);                                                                         \
    }
#define RVOP_F2(fn) RVOP_FENV(WF(fn(F1, F2, &e_)))
#define RVOP_F3(fn) RVOP_FENV(WF(fn(F1, F2, F3, &e_)))

/* min/max/compares ignore rm (round-to-nearest environment, flags only) */
#define RVOP_FCMP(fn, write)                                                                  \
    {                                                                                         \
        npk_fenv e_;                                                                          \
        npk_fenv_init(&e_, NPK_RM_RNE);                                                       \
        write(fn(F1, F2, &e_));                                                               \
        FP_FLAGS(e_);                                                                         \
    }

#define RVOP_WX_U32(v) WX((uint32_t)(v))

RVOP(LUI, WX((uint32_t)IMM);)
RVOP(AUIPC, WX(PC + (uint32_t)IMM);)
RVOP(JAL, {
    JREL_CHECK(IMM);
    WX(PC + 4);
    JUMP_REL(IMM);
})
RVOP(JALR, {
    uint32_t t_ = (A + (uint32_t)IMM) & ~1u;
    JCHECK(t_);
    WX(PC + 4);
    JUMP(t_);
})
RVOP(BEQ, RVOP_BRANCH(A == B))
RVOP(BNE, RVOP_BRANCH(A != B))
RVOP(BLT, RVOP_BRANCH((int32_t)A < (int32_t)B))
RVOP(BGE, RVOP_BRANCH((int32_t)A >= (int32_t)B))
RVOP(BLTU, RVOP_BRANCH(A < B))
RVOP(BGEU, RVOP_BRANCH(A >= B))

RVOP(LB, { uint32_t v_; LOAD(v_, 1, 's'); WX(v_); })
RVOP(LH, { uint32_t v_; LOAD(v_, 2, 's'); WX(v_); })
RVOP(LW, { uint32_t v_; LOAD(v_, 4, 'u'); WX(v_); })
RVOP(LBU, { uint32_t v_; LOAD(v_, 1, 'u'); WX(v_); })
RVOP(LHU, { uint32_t v_; LOAD(v_, 2, 'u'); WX(v_); })
RVOP(FLW, { uint32_t v_; LOAD(v_, 4, 'u'); WF(v_); })
RVOP(SB, STORE(1, B);)
RVOP(SH, STORE(2, B);)
RVOP(SW, STORE(4, B);)
RVOP(FSW, STORE(4, F2);)

RVOP(ADDI, WX(A + (uint32_t)IMM);)
RVOP(SLTI, WX((int32_t)A < IMM);)
RVOP(SLTIU, WX(A < (uint32_t)IMM);)
RVOP(XORI, WX(A ^ (uint32_t)IMM);)
RVOP(ORI, WX(A | (uint32_t)IMM);)
RVOP(ANDI, WX(A & (uint32_t)IMM);)
RVOP(SLLI, WX(A << (IMM & 31));)
RVOP(SRLI, WX(A >> (IMM & 31));)
RVOP(SRAI, WX((uint32_t)((int32_t)A >> (IMM & 31)));)
RVOP(ADD, WX(A + B);)
RVOP(SUB, WX(A - B);)
RVOP(SLL, WX(A << (B & 31));)
RVOP(SLT, WX((int32_t)A < (int32_t)B);)
RVOP(SLTU, WX(A < B);)
RVOP(XOR, WX(A ^ B);)
RVOP(SRL, WX(A >> (B & 31));)
RVOP(SRA, WX((uint32_t)((int32_t)A >> (B & 31)));)
RVOP(OR, WX(A | B);)
RVOP(AND, WX(A & B);)
/* one hart, no caches to keep coherent: the decode cache follows every store by itself */
RVOP(FENCE, {})
RVOP(FENCE_I, {})
RVOP(WFI, {})

RVOP(MUL, WX(A * B);)
RVOP(MULH, WX((uint32_t)((uint64_t)((int64_t)(int32_t)A * (int32_t)B) >> 32));)
RVOP(MULHSU, WX((uint32_t)((uint64_t)((int64_t)(int32_t)A * (int64_t)B) >> 32));)
RVOP(MULHU, WX((uint32_t)((uint64_t)A * B >> 32));)
RVOP(DIV, {
    uint32_t a_ = A, b_ = B;
    WX(b_ == 0 ? 0xFFFFFFFFu
       : (a_ == 0x80000000u && b_ == 0xFFFFFFFFu) ? a_
                                                  : (uint32_t)((int32_t)a_ / (int32_t)b_));
})
RVOP(DIVU, {
    uint32_t a_ = A, b_ = B;
    WX(b_ == 0 ? 0xFFFFFFFFu : a_ / b_);
})
RVOP(REM, {
    uint32_t a_ = A, b_ = B;
    WX(b_ == 0 ? a_
       : (a_ == 0x80000000u && b_ == 0xFFFFFFFFu) ? 0
                                                  : (uint32_t)((int32_t)a_ % (int32_t)b_));
})
RVOP(REMU, {
    uint32_t a_ = A, b_ = B;
    WX(b_ == 0 ? a_ : a_ % b_);
})

RVOP(FMADD_S, RVOP_F3(npk_hostfp_f32_fma))
RVOP(FMSUB_S, RVOP_F3(npk_hostfp_f32_fms))
RVOP(FNMSUB_S, RVOP_F3(npk_hostfp_f32_fnmsub))
RVOP(FNMADD_S, RVOP_F3(npk_hostfp_f32_fnmadd))
RVOP(FADD_S, RVOP_F2(npk_f32_add))
RVOP(FSUB_S, RVOP_F2(npk_f32_sub))
RVOP(FMUL_S, RVOP_F2(npk_f32_mul))
RVOP(FDIV_S, RVOP_F2(npk_f32_div))
RVOP(FSQRT_S, RVOP_FENV(WF(npk_f32_sqrt(F1, &e_))))
RVOP(FSGNJ_S, WF((F1 & 0x7FFFFFFFu) | (F2 & 0x80000000u));)
RVOP(FSGNJN_S, WF((F1 & 0x7FFFFFFFu) | (~F2 & 0x80000000u));)
RVOP(FSGNJX_S, WF(F1 ^ (F2 & 0x80000000u));)
RVOP(FMIN_S, RVOP_FCMP(npk_f32_min, WF))
RVOP(FMAX_S, RVOP_FCMP(npk_f32_max, WF))
RVOP(FEQ_S, RVOP_FCMP(npk_f32_eq, RVOP_WX_U32))
RVOP(FLT_S, RVOP_FCMP(npk_f32_lt, RVOP_WX_U32))
RVOP(FLE_S, RVOP_FCMP(npk_f32_le, RVOP_WX_U32))
RVOP(FCVT_W_S, RVOP_FENV(WX((uint32_t)npk_f32_to_i32(F1, NPK_CVT_SAT, &e_))))
RVOP(FCVT_WU_S, RVOP_FENV(WX(npk_f32_to_u32(F1, NPK_CVT_SAT, &e_))))
RVOP(FCVT_S_W, RVOP_FENV(WF(npk_i32_to_f32((int32_t)A, &e_))))
RVOP(FCVT_S_WU, RVOP_FENV(WF(npk_u32_to_f32(A, &e_))))
RVOP(FMV_X_W, WX(F1);)
RVOP(FMV_W_X, WF(A);)
RVOP(FCLASS_S, WX(npk_f32_classify(F1));)

#undef RVOP_BRANCH
#undef RVOP_FENV
#undef RVOP_F2
#undef RVOP_F3
#undef RVOP_FCMP
#undef RVOP_WX_U32
