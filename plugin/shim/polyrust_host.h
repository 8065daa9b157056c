/* polyrust_host.h: the whole C ABI between the C++ shim and the Rust optimizer.
 *
 * The shim owns everything C++-only (pass registration, command-line options, the
 * analyses of the new pass manager) and hands Rust a table of functions over opaque
 * handles. Rust mirrors these declarations in `passes/src/llvm/abi.rs`; a change here
 * must be made there too and `PR_HOST_API_VERSION` bumped.
 *
 * Lifetimes: a PrFunctionCtx and every handle reached from it (loops, SCEVs) are valid
 * only during the call of polyrust_run_function / polyrust_print_function that received
 * the context. Strings returned by the host are allocated with malloc and released with
 * `free_string`; strings returned by Rust are released with polyrust_free_string.
 */
#ifndef POLYRUST_HOST_H
#define POLYRUST_HOST_H

#include <llvm-c/Types.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PR_HOST_API_VERSION 4

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

/* What a call may do to memory (from llvm::MemoryEffects). */
typedef enum {
  PR_MEM_NONE = 0,
  PR_MEM_READ = 1,
  PR_MEM_WRITE = 2,
  PR_MEM_READ_WRITE = 3,
  PR_MEM_ERRNO_WRITE = 4 /* writes errno and nothing else (libm under -fmath-errno) */
} PrMemoryEffect;

typedef enum {
  PR_REMARK_PASSED = 0,   /* -Rpass=polyrust          */
  PR_REMARK_MISSED = 1,   /* -Rpass-missed=polyrust   */
  PR_REMARK_ANALYSIS = 2  /* -Rpass-analysis=polyrust */
} PrRemarkKind;

typedef enum { PR_SEVERITY_ERROR = 0, PR_SEVERITY_WARNING = 1, PR_SEVERITY_NOTE = 2 } PrSeverity;

typedef enum { PR_TILING_SICA = 0, PR_TILING_FIXED = 1, PR_TILING_NONE = 2 } PrTiling;

/* The -polyrust-* command-line options, as parsed by LLVM. Rust validates them. */
typedef struct {
  uint64_t max_operations;
  PrTiling tiling;
  int tiling_given; /* -polyrust-tiling appeared on the command line */
  const uint32_t *tile_sizes;
  size_t tile_sizes_len;
  double sica_rho;
  const char *export_dir; /* "" when not given */
  const char *import_dir; /* "" when not given */
  const char *l1_cache;   /* as typed ("48K"); "" when not given */
  const char *l2_cache;   /* as typed; "" when not given */
  uint32_t simd_width;    /* bits; 0 when not given */
  int codegen;            /* generate code for the regions (else analyse only) */
  int force_codegen;      /* generate code even where the schedule is unchanged (testing) */
  int allow_reassociation; /* reductions may be reordered (changes floating-point rounding) */
  int debug_remarks;       /* remarks also quote the IR they speak of */
  int profile_generate;    /* -polyrust-profile-generate given (with or without a path) */
  const char *profile_generate_path; /* its path; "" for the default */
  const char *profile_use; /* -polyrust-profile-use; "" when not given */
  uint32_t round;          /* 0 on the first run of the pass on a function, then 1, 2, ...
                              after each region rewritten (detection remarks only on 0) */
  int time_tiling;         /* tile the time loops of iterated stencils (skewed) */
  int register_tiling;     /* unroll and jam point loops into register tiles */
  int exprprop;            /* expression propagation of owned temporaries */
  int quov;                /* owned temporaries stored folded (QUOV) */
  int fusion;              /* stages fused so that temporaries fold */
  const char *instrument;  /* -polyrust-instrument as typed ("values" by default) */
} PrOptions;

/* Which printer pass is asking Rust for text. */
typedef enum { PR_PRINT_LOOPS = 0, PR_PRINT_DETECT = 1, PR_PRINT_SCOPS = 2, PR_PRINT_AST = 3, PR_PRINT_DEPS = 4 } PrPrinter;

typedef struct {
  uint32_t version; /* PR_HOST_API_VERSION */

  /* Loop tree. Index-based so no container crosses the boundary. */
  size_t (*top_level_loop_count)(PrFunctionCtx *);
  PrLoop *(*top_level_loop)(PrFunctionCtx *, size_t index);
  size_t (*subloop_count)(PrLoop *);
  PrLoop *(*subloop)(PrLoop *, size_t index);
  PrLoop *(*parent_loop)(PrLoop *);
  unsigned (*loop_depth)(PrLoop *);
  LLVMBasicBlockRef (*loop_header)(PrLoop *);
  LLVMBasicBlockRef (*loop_preheader)(PrLoop *); /* NULL if none */
  LLVMBasicBlockRef (*loop_latch)(PrLoop *);     /* NULL if several */
  size_t (*loop_block_count)(PrLoop *);
  LLVMBasicBlockRef (*loop_block)(PrLoop *, size_t index);
  size_t (*loop_exit_block_count)(PrLoop *);
  LLVMBasicBlockRef (*loop_exit_block)(PrLoop *, size_t index);
  PrLoop *(*loop_for_block)(PrFunctionCtx *, LLVMBasicBlockRef); /* NULL if none */

  /* Dominance. Both answer 0 or 1; a block dominates itself. */
  int (*dominates)(PrFunctionCtx *, LLVMBasicBlockRef a, LLVMBasicBlockRef b);
  int (*post_dominates)(PrFunctionCtx *, LLVMBasicBlockRef a, LLVMBasicBlockRef b);

  /* ScalarEvolution. */
  int (*is_scevable)(PrFunctionCtx *, LLVMValueRef);
  const PrScev *(*scev_of)(PrFunctionCtx *, LLVMValueRef);
  const PrScev *(*scev_at_scope)(PrFunctionCtx *, const PrScev *, PrLoop *scope /* NULL: function */);
  /* The expression with each of `values` (integers) replaced by its constant. */
  const PrScev *(*scev_substitute)(PrFunctionCtx *, const PrScev *, const LLVMValueRef *values,
                                   const int64_t *constants, size_t count);
  const PrScev *(*backedge_taken_count)(PrFunctionCtx *, PrLoop *);
  const PrScev *(*constant_max_backedge_taken_count)(PrFunctionCtx *, PrLoop *);
  /* backedge-taken count + 1, in a type wide enough not to wrap; could-not-compute if unknown */
  const PrScev *(*trip_count)(PrFunctionCtx *, PrLoop *);
  PrScevKind (*scev_kind)(const PrScev *);
  size_t (*scev_operand_count)(const PrScev *);
  const PrScev *(*scev_operand)(const PrScev *, size_t index);
  unsigned (*scev_flags)(const PrScev *);         /* PR_SCEV_FLAG_* */
  unsigned (*scev_bit_width)(const PrScev *);     /* 0 for pointers */
  LLVMTypeRef (*scev_type)(const PrScev *);
  int (*scev_constant_i64)(const PrScev *, int64_t *out); /* 1 if it fits */
  LLVMValueRef (*scev_unknown_value)(const PrScev *);
  PrLoop *(*scev_add_rec_loop)(const PrScev *);
  char *(*scev_to_string)(const PrScev *);        /* LLVM's own printing */
  /* Materialises the expression as IR before `insert_before`; NULL if not safe to expand. */
  LLVMValueRef (*scev_expand)(PrFunctionCtx *, const PrScev *, LLVMTypeRef, LLVMValueRef insert_before);

  /* SCEV algebra and facts. */
  const PrScev *(*scev_minus)(PrFunctionCtx *, const PrScev *a, const PrScev *b);
  const PrScev *(*pointer_base)(PrFunctionCtx *, const PrScev *); /* the base pointer leaf */
  int (*known_non_negative)(PrFunctionCtx *, const PrScev *);
  int (*known_positive)(PrFunctionCtx *, const PrScev *);
  /* Delinearization (llvm/Analysis/Delinearization.h). Both return the number of
   * dimensions d (0 when it fails), write the d-1 inner dimension sizes (in elements,
   * outermost first) to out_sizes and d subscripts per expression to out_subscripts
   * (expression-major). `exprs` are byte offsets from the array's base pointer. */
  size_t (*delinearize_parametric)(PrFunctionCtx *, const PrScev *const *exprs, size_t count,
                                   uint64_t element_size, const PrScev **out_sizes,
                                   const PrScev **out_subscripts, size_t max_dims);
  size_t (*delinearize_fixed)(PrFunctionCtx *, const PrScev *expr, uint64_t element_size,
                              const PrScev **out_sizes, const PrScev **out_subscripts, size_t max_dims);
  uint64_t (*type_store_size)(PrFunctionCtx *, LLVMTypeRef); /* bytes; 0 if unsized */
  /* Code generation: expands `expr` before `insert_before` after replacing each add
   * recurrence {start,+,step}<loops[k]> by start + step * counters[k] (i64 values that
   * count the loop's iterations from 0); NULL when that is not possible. */
  LLVMValueRef (*expand_with_counters)(PrFunctionCtx *, const PrScev *expr, PrLoop *const *loops,
                                       const LLVMValueRef *counters, size_t count, LLVMTypeRef type,
                                       LLVMValueRef insert_before);
  /* The iteration number (from 0, as i64) of `loop` at `insert_before`, inside the loop. */
  LLVMValueRef (*expand_loop_counter)(PrFunctionCtx *, PrLoop *loop, LLVMValueRef insert_before);
  /* In the phis of `block`, incoming block `from` becomes `to`. */
  void (*replace_phi_incoming_block)(LLVMBasicBlockRef block, LLVMBasicBlockRef from, LLVMBasicBlockRef to);
  /* Registers a new block as part of `loop` (and its parents) in LoopInfo, so that
   * ScalarEvolution expands that loop's recurrences correctly there. */
  void (*add_block_to_loop)(PrFunctionCtx *, LLVMBasicBlockRef block, PrLoop *loop);
  /* Cuts blocks code generation made and gave up on out of the CFG: their edges go
   * (and with them their entries in successors' phis), they end in `unreachable`, and
   * their own phis are removed. Later passes delete them. */
  void (*abandon_blocks)(const LLVMBasicBlockRef *blocks, size_t count);
  /* Registers a new block in the dominator tree under its immediate dominator, so that
   * expansions placed in it only reuse values that dominate it. */
  void (*add_block_to_dominators)(PrFunctionCtx *, LLVMBasicBlockRef block, LLVMBasicBlockRef idom);

  /* Loop metadata (`!llvm.loop`). Whether the loop's ID carries the property `tag`. */
  int (*loop_has_tag)(PrLoop *loop, const char *tag);
  /* Adds the property `tag` to the loop's ID (made if the loop has none). */
  void (*tag_loop)(PrLoop *loop, const char *tag);
  /* Adds the property `tag` to the loop ID on a latch's branch, and when `group` is not
   * NULL the property `llvm.loop.parallel_accesses` with it. */
  void (*tag_latch)(LLVMValueRef branch, const char *tag, LLVMMetadataRef group /* or NULL */);
  /* A new access group (a distinct empty node in the function's context). */
  LLVMMetadataRef (*new_access_group)(LLVMValueRef function);
  /* Adds `group` to a memory instruction's `!llvm.access.group` list. */
  void (*add_access_group)(LLVMValueRef instruction, LLVMMetadataRef group);
  /* A new anonymous alias scope domain with `count` scopes in it, written to `scopes`
   * (scoped no-alias metadata: one scope per array of a region the run-time check
   * proved disjoint). */
  void (*new_alias_scopes)(LLVMValueRef function, size_t count, LLVMMetadataRef *scopes);
  /* Adds `scope` to a memory instruction's `!alias.scope` list and `others` to its
   * `!noalias` list (both keep what they had). */
  void (*add_alias_scopes)(LLVMValueRef instruction, LLVMMetadataRef scope, const LLVMMetadataRef *others,
                           size_t count);

  /* Alias analysis and memory effects. Sizes in bytes; UINT64_MAX means unknown. */
  PrAliasResult (*alias)(PrFunctionCtx *, LLVMValueRef a, uint64_t a_size, LLVMValueRef b, uint64_t b_size);
  PrMemoryEffect (*call_memory_effect)(PrFunctionCtx *, LLVMValueRef call);

  /* TargetTransformInfo. 0 when the target does not say. */
  unsigned (*vector_register_bits)(PrFunctionCtx *);
  unsigned (*cache_size_bytes)(PrFunctionCtx *, unsigned level /* 1 = L1D, 2 = L2D */);
  unsigned (*vector_registers)(PrFunctionCtx *);

  /* "file:line:col" of an instruction, or of the start of a loop when `at` is NULL;
   * NULL when there is no debug location. */
  char *(*source_location)(LLVMValueRef at, PrLoop *loop);

  /* Values and diagnostics. */
  char *(*value_as_operand)(LLVMValueRef); /* "%n", "@g", "42": as LLVM prints operands */
  char *(*value_text)(LLVMValueRef);       /* as LLVM prints the value itself (an instruction) */
  /* The source variable a value holds, from debug info (a global's, or a local's whose
   * #dbg_value/#dbg_declare describes the value itself); NULL when there is none. */
  char *(*source_name)(LLVMValueRef);
  /* Located at `at` if given, else at the start of `loop`, else at the first located
   * instruction of `region`, else at the function. */
  void (*remark)(PrFunctionCtx *, PrRemarkKind, const char *name, LLVMValueRef at /* instruction or NULL */,
                 PrLoop *loop /* or NULL */, LLVMBasicBlockRef region /* or NULL */, const char *message);
  /* An error, warning or note reported through the LLVMContext, prefixed "polyrust: ". */
  void (*diagnose)(PrFunctionCtx *, PrSeverity, const char *message);
  void (*free_string)(char *);

  /* Stage timers: `-ftime-report` (clang) and `-time-passes` (opt) show them in the
   * group "polyrust". `timer_start` returns NULL when timing is off; `timer_stop`
   * takes what it returned (NULL included). */
  void *(*timer_start)(const char *stage);
  void (*timer_stop)(void *timer);
} PrHostApi;

/* Implemented in Rust. */
int polyrust_run_function(const PrHostApi *, PrFunctionCtx *, LLVMValueRef function, const PrOptions *);
char *polyrust_print_function(const PrHostApi *, PrFunctionCtx *, LLVMValueRef function, const PrOptions *,
                              PrPrinter);
void polyrust_free_string(char *);

#ifdef __cplusplus
}
#endif
#endif
