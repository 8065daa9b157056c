/* polyrust_host.h: the whole C ABI between the C++ shim and the Rust optimizer.
 *
 * The shim owns everything C++-only (pass registration, the cl::opt objects, the
 * analyses of the new pass manager, the passes it runs between rounds) and hands Rust a
 * table of functions over opaque handles. Rust declares the options (name, kind,
 * default, help) and runs the rounds of the pass on a function. Rust mirrors these
 * declarations in `passes/src/llvm/abi.rs`; a change here must be made there too and
 * `PR_HOST_API_VERSION` bumped.
 *
 * Lifetimes: a PrFunctionRun is valid during the call of polyrust_optimize_function /
 * polyrust_print_function that received it; a PrFunctionCtx and every handle reached
 * from it (loops, SCEVs) from `analyses_begin` to `analyses_end`. Strings returned by
 * the host are allocated with malloc and released with free(); strings returned by Rust
 * are released with polyrust_free_string. What LLVM's C API offers (debug locations,
 * uniqued metadata, store sizes, phis' incoming lists) Rust calls directly.
 */
#ifndef POLYRUST_HOST_H
#define POLYRUST_HOST_H

#include <llvm-c/Types.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PR_HOST_API_VERSION 7

typedef struct PrFunctionRun PrFunctionRun; /* one function and its analysis manager */
typedef struct PrFunctionCtx PrFunctionCtx; /* one function and its analyses */
typedef struct PrLoop PrLoop;               /* llvm::Loop */
typedef struct PrScev PrScev;               /* llvm::SCEV */

/* Mirrors llvm::SCEVTypes. */
typedef enum {
  PR_SCEV_CONSTANT = 0,
  PR_SCEV_VSCALE,
  PR_SCEV_TRUNCATE,
  PR_SCEV_ZERO_EXTEND,
  PR_SCEV_SIGN_EXTEND,
  PR_SCEV_ADD,
  PR_SCEV_MUL,
  PR_SCEV_UDIV,
  PR_SCEV_ADD_REC,
  PR_SCEV_UMAX,
  PR_SCEV_SMAX,
  PR_SCEV_UMIN,
  PR_SCEV_SMIN,
  PR_SCEV_SEQUENTIAL_UMIN,
  PR_SCEV_PTR_TO_INT,
  PR_SCEV_UNKNOWN,
  PR_SCEV_COULD_NOT_COMPUTE
} PrScevKind;

/* No-wrap flags of add, mul and add-recurrence expressions (llvm::SCEV::NoWrapFlags). */
enum { PR_SCEV_FLAG_NW = 1, PR_SCEV_FLAG_NUW = 2, PR_SCEV_FLAG_NSW = 4 };

/* Mirrors llvm::AliasResult. */
typedef enum {
  PR_NO_ALIAS = 0,
  PR_MAY_ALIAS = 1,
  PR_PARTIAL_ALIAS = 2,
  PR_MUST_ALIAS = 3
} PrAliasResult;

typedef enum {
  PR_REMARK_PASSED = 0,   /* -Rpass=polyrust          */
  PR_REMARK_MISSED = 1,   /* -Rpass-missed=polyrust   */
  PR_REMARK_ANALYSIS = 2  /* -Rpass-analysis=polyrust */
} PrRemarkKind;

typedef enum { PR_SEVERITY_ERROR = 0, PR_SEVERITY_WARNING = 1, PR_SEVERITY_NOTE = 2 } PrSeverity;

/* The kinds of -polyrust-* option, as LLVM parses them. */
typedef enum {
  PR_OPTION_FLAG = 0,      /* cl::opt<bool> */
  PR_OPTION_UINT64 = 1,    /* cl::opt<uint64_t> */
  PR_OPTION_UINT = 2,      /* cl::opt<unsigned> */
  PR_OPTION_NUMBER = 3,    /* cl::opt<double> */
  PR_OPTION_TEXT = 4,      /* cl::opt<std::string> */
  PR_OPTION_UINT_LIST = 5, /* cl::list<unsigned>, comma-separated */
  PR_OPTION_CHOICE = 6     /* one of `choices`, held as its index */
} PrOptionKind;

typedef struct {
  const char *name;
  const char *help;
} PrOptionChoice;

/* One -polyrust-* option as Rust declares it (passes/src/options/declarations.rs). The
 * strings are static. */
typedef struct {
  const char *name;         /* without the leading '-' */
  const char *help;
  const char *value_name;   /* "" for LLVM's own (<uint>, <string>, ...) */
  PrOptionKind kind;
  int hidden;               /* listed by --help-hidden only */
  int value_optional;       /* the option may be given without a value */
  uint64_t default_integer; /* flags (0 or 1), integers, the choice's index */
  double default_number;
  const char *default_text;
  const PrOptionChoice *choices;
  size_t choice_count;
} PrOptionDeclaration;

/* One option's value as LLVM parsed it, in the order of the declarations. */
typedef struct {
  int given;          /* the option appeared on the command line */
  uint64_t integer;   /* flags, integers, the choice's index */
  double number;
  const char *text;   /* text options; "" when empty */
  const uint32_t *list;
  size_t list_len;
} PrOptionValue;

/* The passes the host runs on a function between rounds, for Rust. */
typedef enum {
  PR_PASS_LOOP_SIMPLIFY = 0,
  PR_PASS_LCSSA = 1,
  PR_PASS_SROA_MODIFY_CFG = 2,
  PR_PASS_INSTCOMBINE = 3,
  PR_PASS_EARLY_CSE_MEMSSA = 4,
  PR_PASS_DSE = 5,
  PR_PASS_ROTATE_AND_LICM = 6, /* loop-mssa(loop-rotate,licm) */
  PR_PASS_LICM_AND_INDVARS = 7 /* loop-mssa(licm),loop(indvars) */
} PrFunctionPass;

/* Where the host lists expressions: it calls `push` once per expression, in order. */
typedef struct {
  void *list;
  void (*push)(void *list, const PrScev *);
} PrScevList;

/* Which printer pass is asking Rust for text. */
typedef enum { PR_PRINT_LOOPS = 0, PR_PRINT_DETECT = 1, PR_PRINT_SCOPS = 2, PR_PRINT_AST = 3, PR_PRINT_DEPS = 4 } PrPrinter;

typedef struct {
  uint32_t version; /* PR_HOST_API_VERSION */

  /* Rounds. `analyses_begin` gathers the analyses of the function as they are now;
   * `analyses_end` releases them. `run_pass` runs one pass on the function and answers
   * 1 if it changed the IR; `invalidate_analyses` drops every analysis of the function. */
  PrFunctionCtx *(*analyses_begin)(PrFunctionRun *);
  void (*analyses_end)(PrFunctionCtx *);
  int (*run_pass)(PrFunctionRun *, PrFunctionPass);
  void (*invalidate_analyses)(PrFunctionRun *);

  /* Loop tree. Index-based so no container crosses the boundary. */
  size_t (*top_level_loop_count)(PrFunctionCtx *);
  PrLoop *(*top_level_loop)(PrFunctionCtx *, size_t index);
  size_t (*subloop_count)(PrLoop *);
  PrLoop *(*subloop)(PrLoop *, size_t index);
  PrLoop *(*parent_loop)(PrLoop *);
  LLVMBasicBlockRef (*loop_preheader)(PrLoop *); /* NULL if none */
  LLVMBasicBlockRef (*loop_latch)(PrLoop *);     /* NULL if several */
  size_t (*loop_block_count)(PrLoop *);
  LLVMBasicBlockRef (*loop_block)(PrLoop *, size_t index); /* the header first */
  PrLoop *(*loop_for_block)(PrFunctionCtx *, LLVMBasicBlockRef); /* NULL if none */
  /* The debug location (a DILocation) where the loop starts in the source; NULL if none. */
  LLVMMetadataRef (*loop_start_location)(PrLoop *);

  /* Dominance. Both answer 0 or 1; a block dominates itself. */
  int (*dominates)(PrFunctionCtx *, LLVMBasicBlockRef a, LLVMBasicBlockRef b);
  int (*post_dominates)(PrFunctionCtx *, LLVMBasicBlockRef a, LLVMBasicBlockRef b);

  /* ScalarEvolution (of integer and pointer values). */
  const PrScev *(*scev_of)(PrFunctionCtx *, LLVMValueRef);
  const PrScev *(*scev_at_scope)(PrFunctionCtx *, const PrScev *, PrLoop *scope /* NULL: function */);
  const PrScev *(*backedge_taken_count)(PrFunctionCtx *, PrLoop *);
  const PrScev *(*constant_max_backedge_taken_count)(PrFunctionCtx *, PrLoop *);
  /* A backedge-taken count + 1: in the count's own type when `own_type`, else in one
   * wide enough not to wrap. */
  const PrScev *(*trip_count_from_taken)(PrFunctionCtx *, const PrScev *taken, PrLoop *, int own_type);
  PrScevKind (*scev_kind)(const PrScev *);
  size_t (*scev_operand_count)(const PrScev *);
  const PrScev *(*scev_operand)(const PrScev *, size_t index);
  unsigned (*scev_flags)(const PrScev *);         /* PR_SCEV_FLAG_* */
  LLVMTypeRef (*scev_type)(const PrScev *);
  /* The ConstantInt of a constant, the IR value of an unknown leaf; NULL otherwise. */
  LLVMValueRef (*scev_value)(const PrScev *);
  PrLoop *(*scev_add_rec_loop)(const PrScev *);
  char *(*scev_to_string)(const PrScev *);        /* LLVM's own printing */
  /* Materialises the expression as IR before `insert_before`; NULL if not safe to expand.
   * `canonical`: SCEVExpander's canonical mode (new induction variables for recurrences). */
  LLVMValueRef (*scev_expand)(PrFunctionCtx *, const PrScev *, LLVMTypeRef, LLVMValueRef insert_before,
                              int canonical);

  /* SCEV algebra and facts. */
  const PrScev *(*scev_minus)(PrFunctionCtx *, const PrScev *a, const PrScev *b);
  const PrScev *(*pointer_base)(PrFunctionCtx *, const PrScev *); /* the base pointer leaf */
  int (*known_non_negative)(PrFunctionCtx *, const PrScev *);
  /* Building expressions: `value` (sign-extended) in the integer `type`; an unknown leaf;
   * a + b; a * b; {start,+,step}<loop> without no-wrap flags; truncated or sign-extended
   * to `type`; and an expression of the kind of `like` (with its loop and no-wrap flags
   * for an add recurrence, its type for a cast) over new operands, as
   * llvm::SCEVRewriteVisitor rebuilds one. */
  const PrScev *(*scev_constant)(PrFunctionCtx *, LLVMTypeRef type, int64_t value);
  const PrScev *(*scev_unknown)(PrFunctionCtx *, LLVMValueRef);
  const PrScev *(*scev_add)(PrFunctionCtx *, const PrScev *a, const PrScev *b);
  const PrScev *(*scev_mul)(PrFunctionCtx *, const PrScev *a, const PrScev *b);
  const PrScev *(*scev_add_rec)(PrFunctionCtx *, const PrScev *start, const PrScev *step, PrLoop *loop);
  const PrScev *(*scev_truncate_or_sign_extend)(PrFunctionCtx *, const PrScev *, LLVMTypeRef type);
  const PrScev *(*scev_with_operands)(PrFunctionCtx *, const PrScev *like, const PrScev *const *operands,
                                      size_t count);
  /* The steps of delinearization (llvm/Analysis/Delinearization.h): the parametric terms
   * of byte offsets, the array dimensions they suggest (the element size last), each
   * offset's subscripts in those dimensions; and the one-step delinearization of an
   * offset into a fixed-size array (1 if it succeeded). */
  void (*parametric_terms)(PrFunctionCtx *, const PrScev *const *exprs, size_t count, PrScevList *terms);
  void (*array_dimensions)(PrFunctionCtx *, const PrScev *const *terms, size_t count,
                           const PrScev *element_size, PrScevList *sizes);
  void (*access_functions)(PrFunctionCtx *, const PrScev *expr, const PrScev *const *sizes, size_t count,
                           PrScevList *subscripts);
  int (*delinearize_fixed)(PrFunctionCtx *, const PrScev *expr, const PrScev *element_size,
                           PrScevList *subscripts, PrScevList *sizes);
  /* In the phis of `block`, incoming block `from` becomes `to`. */
  void (*replace_phi_incoming_block)(LLVMBasicBlockRef block, LLVMBasicBlockRef from, LLVMBasicBlockRef to);
  /* Registers a new block as part of `loop` (and its parents) in LoopInfo, so that
   * ScalarEvolution expands that loop's recurrences correctly there. */
  void (*add_block_to_loop)(PrFunctionCtx *, LLVMBasicBlockRef block, PrLoop *loop);
  /* Removes every entry of `phi` that comes from `from`. */
  void (*remove_phi_incoming)(LLVMValueRef phi, LLVMBasicBlockRef from);
  /* Registers a new block in the dominator tree under its immediate dominator, so that
   * expansions placed in it only reuse values that dominate it. */
  void (*add_block_to_dominators)(PrFunctionCtx *, LLVMBasicBlockRef block, LLVMBasicBlockRef idom);

  /* Metadata LLVM's C API cannot make or reach. The ID (`!llvm.loop`) of a loop of
   * LoopInfo, NULL if none, and setting it on all its latches; a distinct node (access
   * groups; loop IDs, alias scopes and their domains, which then refer to themselves). */
  LLVMMetadataRef (*loop_id)(PrLoop *loop);
  void (*set_loop_id)(PrLoop *loop, LLVMMetadataRef id);
  LLVMMetadataRef (*distinct_node)(LLVMContextRef, LLVMMetadataRef *operands, size_t count);

  /* Alias analysis and memory effects. Sizes in bytes; UINT64_MAX means unknown. A call's
   * effects are llvm::MemoryEffects' encoding (that of the `memory` attribute): two bits
   * per location (1 reads, 2 writes), errno memory the third location. */
  PrAliasResult (*alias)(PrFunctionCtx *, LLVMValueRef a, uint64_t a_size, LLVMValueRef b, uint64_t b_size);
  uint32_t (*call_memory_effects)(PrFunctionCtx *, LLVMValueRef call);

  /* TargetTransformInfo. 0 when the target does not say. */
  unsigned (*vector_register_bits)(PrFunctionCtx *);
  unsigned (*cache_size_bytes)(PrFunctionCtx *, unsigned level /* 1 = L1D, 2 = L2D */);
  unsigned (*vector_registers)(PrFunctionCtx *);

  /* Values and diagnostics. A value as LLVM prints it as an operand ("%n", "@g", "42")
   * or, not `as_operand`, as itself (an instruction); `function` is the one it is local
   * to (an instruction's, an argument's, a block's), NULL for others. */
  char *(*value_text)(LLVMValueRef, LLVMValueRef function, int as_operand);
  /* The source variable a value holds, from debug info (a global's, or a local's whose
   * #dbg_value/#dbg_declare describes the value itself); NULL when there is none. */
  char *(*source_name)(LLVMValueRef);
  /* A remark on `block`, located at `location` (a DILocation) if given, else at the
   * function. */
  void (*remark)(PrFunctionCtx *, PrRemarkKind, const char *name, LLVMMetadataRef location /* or NULL */,
                 LLVMBasicBlockRef block, const char *message);
  /* An error, warning or note reported through the LLVMContext, prefixed "polyrust: ". */
  void (*diagnose)(PrFunctionCtx *, PrSeverity, const char *message);

  /* Stage timers: `-ftime-report` (clang) and `-time-passes` (opt) show them in the
   * group "polyrust". `timer_start` returns NULL when timing is off; `timer_stop`
   * takes what it returned (NULL included). */
  void *(*timer_start)(const char *stage);
  void (*timer_stop)(void *timer);

  /* Outlining (llvm::CodeExtractor, as clang's OpenMP lowering uses it). Moves `blocks`
   * (the first the only one entered from outside, every edge out of them to one block)
   * into a new internal function named after the caller and `suffix`, taking each value
   * they use from outside as an argument, and puts a call of it in their place. Debug
   * records, phis and metadata move with the instructions. Answers the call, or NULL
   * (nothing changed) when the blocks cannot be moved or define values used after them. */
  LLVMValueRef (*extract_blocks)(const LLVMBasicBlockRef *blocks, size_t count, const char *suffix);
} PrHostApi;

/* Implemented in Rust. The declaration of option `index` (0 past the last one); whether
 * the pass joins the pipeline at an optimization level; the rounds of the pass on one
 * function (1 if the IR changed); the printer a pipeline element names
 * (`print<polyrust-loops>`; -1 if none) and its text. `values` hold one value per
 * declared option. */
int polyrust_option_declaration(size_t index, PrOptionDeclaration *out);
int polyrust_joins_pipeline(const PrOptionValue *values, size_t count, unsigned speedup_level,
                            unsigned size_level);
int polyrust_optimize_function(const PrHostApi *, PrFunctionRun *, LLVMValueRef function,
                               const PrOptionValue *values, size_t count);
int polyrust_printer_named(const char *name, size_t length);
char *polyrust_print_function(const PrHostApi *, PrFunctionRun *, LLVMValueRef function,
                              const PrOptionValue *values, size_t count, PrPrinter);
void polyrust_free_string(char *);

#ifdef __cplusplus
}
#endif
#endif
