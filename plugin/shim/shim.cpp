// The C++ shim of polyrust: pass registration, the -polyrust-* options, and access to
// the analyses only C++ can reach, exposed to Rust as the table of polyrust_host.h.
// No optimisation logic lives here: every decision is taken in Rust.

#include "polyrust_host.h"

#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/Analysis/Delinearization.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ModuleSlotTracker.h"
#include "llvm/Pass.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Timer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar/DeadStoreElimination.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/LICM.h"
#include "llvm/Transforms/Scalar/LoopPassManager.h"
#include "llvm/Transforms/Scalar/LoopRotation.h"
#include "llvm/Transforms/Scalar/SROA.h"
#include "llvm/Transforms/Utils/LCSSA.h"
#include "llvm/Transforms/Utils/LoopSimplify.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>

using namespace llvm;

namespace {

cl::OptionCategory PolyrustCategory("polyrust options",
                                    "Options of the polyrust polyhedral loop optimizer");

cl::opt<bool> Enable("polyrust-enable",
                     cl::desc("Run polyrust automatically in the -O2/-O3 pipeline, before "
                              "the vectorizer (default: true when the plugin is loaded)"),
                     cl::init(true), cl::cat(PolyrustCategory));

cl::opt<uint64_t> MaxOperations(
    "polyrust-max-operations",
    cl::desc("Upper bound on isl operations per region; a region that needs more is left "
             "unchanged with a remark (0 = only the ceiling of 200000000; default: 2000000)"),
    cl::init(2000000), cl::cat(PolyrustCategory));

cl::opt<PrTiling> Tiling(
    "polyrust-tiling", cl::desc("How tile sizes are chosen (default: sica)"),
    cl::values(clEnumValN(PR_TILING_SICA, "sica",
                          "from the cache sizes and the SIMD width (SICA)"),
               clEnumValN(PR_TILING_FIXED, "fixed", "from -polyrust-tile-sizes"),
               clEnumValN(PR_TILING_NONE, "none", "do not tile")),
    cl::init(PR_TILING_SICA), cl::cat(PolyrustCategory));

cl::list<unsigned> TileSizes(
    "polyrust-tile-sizes",
    cl::desc("Comma-separated tile sizes, outermost loop first, for "
             "-polyrust-tiling=fixed (default: 32 for every loop)"),
    cl::CommaSeparated, cl::cat(PolyrustCategory));

cl::opt<double> SicaRho("polyrust-sica-rho",
                        cl::desc("Share of the L1 data cache SICA tiles fill, in (0, 1] "
                                 "(default: 0.9)"),
                        cl::init(0.9), cl::cat(PolyrustCategory));

cl::opt<std::string> ExportDir(
    "polyrust-export",
    cl::desc("Write the polyhedral model of every region as JSON into this directory"),
    cl::value_desc("dir"), cl::cat(PolyrustCategory));

cl::opt<std::string> ImportDir(
    "polyrust-import",
    cl::desc("Read region schedules from JSON files in this directory (as written by "
             "-polyrust-export, with the schedules edited)"),
    cl::value_desc("dir"), cl::cat(PolyrustCategory));

cl::opt<std::string> L1Cache(
    "polyrust-l1-cache",
    cl::desc("L1 data cache size for SICA tile sizes, e.g. 32K (default: the host's when "
             "compiling for it, else the target's, else 32K)"),
    cl::value_desc("size"), cl::cat(PolyrustCategory));

cl::opt<std::string> L2Cache(
    "polyrust-l2-cache",
    cl::desc("L2 cache size for SICA tile sizes, e.g. 1M (default: the host's when "
             "compiling for it, else the target's, else 256K)"),
    cl::value_desc("size"), cl::cat(PolyrustCategory));

cl::opt<unsigned> SimdWidth(
    "polyrust-simd-width",
    cl::desc("SIMD register width in bits for SICA tile sizes (default: the target's, "
             "else 128)"),
    cl::init(0), cl::cat(PolyrustCategory));

cl::opt<bool> Codegen(
    "polyrust-codegen",
    cl::desc("Replace regions for which the cost model accepts a new schedule by code "
             "generated from it, behind a run-time check (default: true; false keeps "
             "polyrust to analysis and remarks)"),
    cl::init(true), cl::cat(PolyrustCategory));

cl::opt<bool> ForceCodegen(
    "polyrust-force-codegen",
    cl::desc("Generate code for every modelled region, even with its original schedule "
             "(for testing code generation)"),
    cl::init(false), cl::Hidden, cl::cat(PolyrustCategory));

cl::opt<bool> TimeTiling(
    "polyrust-time-tiling",
    cl::desc("Tile the time loop of iterated stencils together with their row loops, "
             "skewed, when a time step's data does not stay in cache (default: true)"),
    cl::init(true), cl::cat(PolyrustCategory));

cl::opt<bool> RegisterTiling(
    "polyrust-register-tiling",
    cl::desc("Unroll and jam the point loops of a tiled band around its innermost loop, "
             "so that values loaded there are reused from registers (default: true)"),
    cl::init(true), cl::cat(PolyrustCategory));

cl::opt<bool> Exprprop(
    "polyrust-exprprop",
    cl::desc("Recompute a temporary's values where they are read, when the function owns "
             "it and nothing after the region reads it, so that its stores and its "
             "memory go (default: true)"),
    cl::init(true), cl::cat(PolyrustCategory));

cl::opt<bool> Quov(
    "polyrust-quov",
    cl::desc("Store a temporary the function owns folded to the cells the new schedule "
             "needs live at once (U[t][i] in U[t mod 2][i], a value read at once in one "
             "cell), checked against the schedule; its full memory is not touched "
             "(default: true)"),
    cl::init(true), cl::cat(PolyrustCategory));

cl::opt<bool> Fusion(
    "polyrust-fusion",
    cl::desc("Fuse the loop nests of a pipeline into one loop over rows, each stage a few "
             "rows behind the one it reads, where that lets a temporary the function owns "
             "be stored in those rows only (needs -polyrust-quov) (default: true)"),
    cl::init(true), cl::cat(PolyrustCategory));

cl::opt<bool> AllowReassociation(
    "polyrust-allow-reassociation",
    cl::desc("Let schedules reorder the updates of reductions (s += x): floating-point "
             "results may then differ in their last bits (default: false)"),
    cl::init(false), cl::cat(PolyrustCategory));

cl::opt<std::string> ProfileGenerate(
    "polyrust-profile-generate", cl::ValueOptional,
    cl::desc("Instrument the loop nests polyrust could optimize only under assumptions a "
             "run-time check settles, and the run-time checks of optimized code (how "
             "often each passed); the program (linked with -lpolyrust_rt) writes a "
             "profile at exit, to this path (default: default.polyprof.json, or "
             "$POLYRUST_PROFILE_FILE; %p is the process id)"),
    cl::value_desc("path"), cl::cat(PolyrustCategory));

cl::opt<std::string> Instrument(
    "polyrust-instrument",
    cl::desc("What -polyrust-profile-generate records: 'values' (the values speculation "
             "needs, and how often run-time checks pass) or 'accesses' (every outermost "
             "loop nest of every function gets loop counters and reports each iteration "
             "and each load and store with its iteration vector and address, for the "
             "folding analysis; those nests are not optimized in that compile) "
             "(default: values)"),
    cl::value_desc("values|accesses"), cl::init("values"), cl::cat(PolyrustCategory));

cl::opt<std::string> ProfileUse(
    "polyrust-profile-use",
    cl::desc("Specialize loop nests on the values a profile of -polyrust-profile-generate "
             "recorded, behind run-time checks, and leave alone code whose check mostly "
             "failed in the profiled run"),
    cl::value_desc("path"), cl::cat(PolyrustCategory));

cl::opt<bool> DebugRemarks(
    "polyrust-debug-remarks",
    cl::desc("Remarks also quote the LLVM IR and ScalarEvolution expressions they speak "
             "of (for polyrust's developers)"),
    cl::init(false), cl::Hidden, cl::cat(PolyrustCategory));

} // namespace

struct PrFunctionCtx {
  Function &F;
  LoopInfo &LI;
  DominatorTree &DT;
  PostDominatorTree &PDT;
  ScalarEvolution &SE;
  AAResults &AA;
  TargetTransformInfo &TTI;
  OptimizationRemarkEmitter &ORE;
};

namespace {

Loop *L(PrLoop *P) { return reinterpret_cast<Loop *>(P); }
PrLoop *P(Loop *L) { return reinterpret_cast<PrLoop *>(L); }
const SCEV *S(const PrScev *P) { return reinterpret_cast<const SCEV *>(P); }
const PrScev *P(const SCEV *S) { return reinterpret_cast<const PrScev *>(S); }

char *copyString(const std::string &Text) {
  char *Out = static_cast<char *>(std::malloc(Text.size() + 1));
  if (Out)
    std::memcpy(Out, Text.c_str(), Text.size() + 1);
  return Out;
}

LocationSize locationSize(uint64_t Bytes) {
  return Bytes == std::numeric_limits<uint64_t>::max() ? LocationSize::beforeOrAfterPointer()
                                                       : LocationSize::precise(Bytes);
}

// Replaces the add recurrences of chosen loops by their value at given iteration
// numbers: {start,+,step}<L> becomes start + step * counter(L).
struct CounterRewriter : SCEVRewriteVisitor<CounterRewriter> {
  DenseMap<const Loop *, Value *> Counters;
  bool Failed = false;
  explicit CounterRewriter(ScalarEvolution &SE) : SCEVRewriteVisitor(SE) {}
  const SCEV *visitAddRecExpr(const SCEVAddRecExpr *Expr) {
    auto It = Counters.find(Expr->getLoop());
    if (It == Counters.end())
      return SCEVRewriteVisitor::visitAddRecExpr(Expr);
    if (!Expr->isAffine()) {
      Failed = true;
      return Expr;
    }
    Type *Ty = Expr->getType();
    Type *IntTy = Ty->isPointerTy() ? SE.getDataLayout().getIntPtrType(Ty) : Ty;
    const SCEV *Start = visit(Expr->getStart());
    const SCEV *Step = visit(Expr->getStepRecurrence(SE));
    const SCEV *Counter = SE.getTruncateOrSignExtend(SE.getUnknown(It->second), IntTy);
    return SE.getAddExpr(Start, SE.getMulExpr(Step, Counter));
  }
};

// Whether a debug expression leaves the value as it is, up to a change of width: only
// then does the variable it describes name the value itself.
bool describesValueItself(const DIExpression *E) {
  for (auto Op : E->expr_ops())
    switch (Op.getOp()) {
    case dwarf::DW_OP_LLVM_convert:
    case dwarf::DW_OP_LLVM_fragment:
    case dwarf::DW_OP_stack_value:
      break;
    default:
      return false;
    }
  return true;
}

// The source variable `V` holds, from debug info.
char *sourceName(Value *V) {
  if (auto *G = dyn_cast<GlobalVariable>(V)) {
    SmallVector<DIGlobalVariableExpression *, 1> Vars;
    G->getDebugInfo(Vars);
    for (DIGlobalVariableExpression *E : Vars)
      if (DIGlobalVariable *Var = E->getVariable())
        if (!Var->getName().empty() && describesValueItself(E->getExpression()))
          return copyString(Var->getName().str());
    return nullptr;
  }
  for (auto Records : {findDVRDeclares(V), findDVRValues(V)})
    for (DbgVariableRecord *R : Records)
      if (!R->hasArgList() && R->getVariable() && !R->getVariable()->getName().empty() &&
          describesValueItself(R->getExpression()))
        return copyString(R->getVariable()->getName().str());
  // A local array under assignment tracking (clang -O2 -g) has no declare record: the
  // stores to it are linked to its variable through the alloca's DIAssignID.
  if (auto *I = dyn_cast<Instruction>(V))
    for (DbgVariableRecord *R : at::getDVRAssignmentMarkers(I))
      if (R->getVariable() && !R->getVariable()->getName().empty())
        return copyString(R->getVariable()->getName().str());
  return nullptr;
}

// Whether a loop ID has a property node whose first operand is the string `Tag`.
bool hasLoopProperty(MDNode *ID, StringRef Tag) {
  for (unsigned I = 1, E = ID->getNumOperands(); I < E; ++I)
    if (auto *Prop = dyn_cast<MDNode>(ID->getOperand(I)))
      if (Prop->getNumOperands() > 0)
        if (auto *Name = dyn_cast<MDString>(Prop->getOperand(0)))
          if (Name->getString() == Tag)
            return true;
  return false;
}

// A new loop ID: the properties of `Old` (if any), then `!{!"Tag"}` and, with a group,
// `!{!"llvm.loop.parallel_accesses", Group}`. Loop IDs refer to themselves first.
MDNode *withLoopProperties(LLVMContext &Ctx, MDNode *Old, StringRef Tag, MDNode *Group) {
  SmallVector<Metadata *, 8> Ops{nullptr};
  if (Old)
    for (unsigned I = 1, E = Old->getNumOperands(); I < E; ++I)
      Ops.push_back(Old->getOperand(I));
  if (!Old || !hasLoopProperty(Old, Tag))
    Ops.push_back(MDNode::get(Ctx, MDString::get(Ctx, Tag)));
  if (Group)
    Ops.push_back(MDNode::get(Ctx, {MDString::get(Ctx, "llvm.loop.parallel_accesses"), Group}));
  MDNode *ID = MDNode::getDistinct(Ctx, Ops);
  ID->replaceOperandWith(0, ID);
  return ID;
}

// Slot numbers (`%12`) of the function Rust is working on, computed once per call into
// Rust: printing a value without them numbers the whole function again, which made
// detection quadratic in the function's size (NPB BT: a third of the pass's time).
struct SlotCache {
  const Function *F = nullptr;
  std::unique_ptr<ModuleSlotTracker> Slots;
};
thread_local SlotCache Slots;

ModuleSlotTracker &slotsOf(const Function &F) {
  if (Slots.F != &F || !Slots.Slots) {
    Slots.Slots = std::make_unique<ModuleSlotTracker>(F.getParent(), /*ShouldInitializeAllMetadata=*/false);
    Slots.Slots->incorporateFunction(F);
    Slots.F = &F;
  }
  return *Slots.Slots;
}

// Called around every call into Rust: the IR may change in between.
void forgetSlots() {
  Slots.Slots.reset();
  Slots.F = nullptr;
}

const Function *functionOf(const Value *V) {
  if (auto *I = dyn_cast<Instruction>(V))
    return I->getFunction();
  if (auto *A = dyn_cast<Argument>(V))
    return A->getParent();
  if (auto *B = dyn_cast<BasicBlock>(V))
    return B->getParent();
  return nullptr;
}

const PrHostApi HostApi = {
    PR_HOST_API_VERSION,
    // Loop tree.
    [](PrFunctionCtx *C) -> size_t { return C->LI.getTopLevelLoops().size(); },
    [](PrFunctionCtx *C, size_t I) { return P(C->LI.getTopLevelLoops()[I]); },
    [](PrLoop *Lp) -> size_t { return L(Lp)->getSubLoops().size(); },
    [](PrLoop *Lp, size_t I) { return P(L(Lp)->getSubLoops()[I]); },
    [](PrLoop *Lp) { return P(L(Lp)->getParentLoop()); },
    [](PrLoop *Lp) { return L(Lp)->getLoopDepth(); },
    [](PrLoop *Lp) { return wrap(L(Lp)->getHeader()); },
    [](PrLoop *Lp) { return wrap(L(Lp)->getLoopPreheader()); },
    [](PrLoop *Lp) { return wrap(L(Lp)->getLoopLatch()); },
    [](PrLoop *Lp) -> size_t { return L(Lp)->getNumBlocks(); },
    [](PrLoop *Lp, size_t I) { return wrap(L(Lp)->getBlocks()[I]); },
    [](PrLoop *Lp) -> size_t {
      SmallVector<BasicBlock *, 4> Exits;
      L(Lp)->getUniqueExitBlocks(Exits);
      return Exits.size();
    },
    [](PrLoop *Lp, size_t I) {
      SmallVector<BasicBlock *, 4> Exits;
      L(Lp)->getUniqueExitBlocks(Exits);
      return wrap(Exits[I]);
    },
    [](PrFunctionCtx *C, LLVMBasicBlockRef B) { return P(C->LI.getLoopFor(unwrap(B))); },
    // Dominance.
    [](PrFunctionCtx *C, LLVMBasicBlockRef A, LLVMBasicBlockRef B) -> int {
      return C->DT.dominates(unwrap(A), unwrap(B));
    },
    [](PrFunctionCtx *C, LLVMBasicBlockRef A, LLVMBasicBlockRef B) -> int {
      return C->PDT.dominates(unwrap(A), unwrap(B));
    },
    // ScalarEvolution.
    [](PrFunctionCtx *C, LLVMValueRef V) -> int {
      return C->SE.isSCEVable(unwrap(V)->getType());
    },
    [](PrFunctionCtx *C, LLVMValueRef V) { return P(C->SE.getSCEV(unwrap(V))); },
    [](PrFunctionCtx *C, const PrScev *E, PrLoop *Scope) {
      return P(C->SE.getSCEVAtScope(S(E), L(Scope)));
    },
    [](PrFunctionCtx *C, const PrScev *E, const LLVMValueRef *Values, const int64_t *Constants,
       size_t Count) {
      ValueToSCEVMapTy Map;
      for (size_t I = 0; I < Count; ++I) {
        Value *V = unwrap(Values[I]);
        if (V->getType()->isIntegerTy())
          Map[V] = C->SE.getConstant(V->getType(), static_cast<uint64_t>(Constants[I]),
                                     /*isSigned=*/true);
      }
      return P(SCEVParameterRewriter::rewrite(S(E), C->SE, Map));
    },
    [](PrFunctionCtx *C, PrLoop *Lp) { return P(C->SE.getBackedgeTakenCount(L(Lp))); },
    [](PrFunctionCtx *C, PrLoop *Lp) {
      return P(C->SE.getConstantMaxBackedgeTakenCount(L(Lp)));
    },
    [](PrFunctionCtx *C, PrLoop *Lp) {
      const SCEV *Taken = C->SE.getBackedgeTakenCount(L(Lp));
      if (isa<SCEVCouldNotCompute>(Taken))
        return P(Taken);
      // In the count's own type when the +1 provably cannot wrap (readable), else wider.
      auto *Max = dyn_cast<SCEVConstant>(C->SE.getConstantMaxBackedgeTakenCount(L(Lp)));
      if (Max && !Max->getAPInt().isMaxValue())
        return P(C->SE.getTripCountFromExitCount(Taken, Taken->getType(), L(Lp)));
      return P(C->SE.getTripCountFromExitCount(Taken));
    },
    [](const PrScev *E) { return static_cast<PrScevKind>(S(E)->getSCEVType()); },
    [](const PrScev *E) -> size_t { return S(E)->operands().size(); },
    [](const PrScev *E, size_t I) { return P(S(E)->operands()[I]); },
    [](const PrScev *E) -> unsigned {
      if (auto *N = dyn_cast<SCEVNAryExpr>(S(E)))
        return static_cast<unsigned>(N->getNoWrapFlags());
      return 0;
    },
    [](const PrScev *E) -> unsigned {
      Type *Ty = S(E)->getType();
      return Ty->isIntegerTy() ? Ty->getIntegerBitWidth() : 0;
    },
    [](const PrScev *E) { return wrap(S(E)->getType()); },
    [](const PrScev *E, int64_t *Out) -> int {
      auto *K = dyn_cast<SCEVConstant>(S(E));
      if (!K || K->getAPInt().getSignificantBits() > 64)
        return 0;
      *Out = K->getAPInt().getSExtValue();
      return 1;
    },
    [](const PrScev *E) -> LLVMValueRef {
      auto *U = dyn_cast<SCEVUnknown>(S(E));
      return U ? wrap(U->getValue()) : nullptr;
    },
    [](const PrScev *E) -> PrLoop * {
      auto *R = dyn_cast<SCEVAddRecExpr>(S(E));
      return R ? P(const_cast<Loop *>(R->getLoop())) : nullptr;
    },
    [](const PrScev *E) {
      std::string Text;
      raw_string_ostream OS(Text);
      S(E)->print(OS);
      return copyString(Text);
    },
    [](PrFunctionCtx *C, const PrScev *E, LLVMTypeRef Ty, LLVMValueRef Before) -> LLVMValueRef {
      auto *At = dyn_cast<Instruction>(unwrap(Before));
      if (!At)
        return nullptr;
      SCEVExpander Expander(C->SE, "polyrust");
      if (!Expander.isSafeToExpandAt(S(E), At))
        return nullptr;
      return wrap(Expander.expandCodeFor(S(E), unwrap(Ty), At->getIterator()));
    },
    // SCEV algebra and facts.
    [](PrFunctionCtx *C, const PrScev *A, const PrScev *B) {
      return P(C->SE.getMinusSCEV(S(A), S(B)));
    },
    [](PrFunctionCtx *C, const PrScev *E) { return P(C->SE.getPointerBase(S(E))); },
    [](PrFunctionCtx *C, const PrScev *E) -> int { return C->SE.isKnownNonNegative(S(E)); },
    [](PrFunctionCtx *C, const PrScev *E) -> int { return C->SE.isKnownPositive(S(E)); },
    [](PrFunctionCtx *C, const PrScev *const *Exprs, size_t Count, uint64_t ElementSize,
       const PrScev **OutSizes, const PrScev **OutSubscripts, size_t MaxDims) -> size_t {
      Type *Ty = Count ? S(Exprs[0])->getType() : nullptr;
      if (!Ty || !Ty->isIntegerTy())
        return 0;
      const SCEV *Element = C->SE.getConstant(Ty, ElementSize);
      SmallVector<const SCEV *, 8> Terms;
      for (size_t I = 0; I < Count; ++I)
        collectParametricTerms(C->SE, S(Exprs[I]), Terms);
      SmallVector<const SCEV *, 4> Sizes;
      findArrayDimensions(C->SE, Terms, Sizes, Element);
      size_t Dims = Sizes.size();
      if (Dims < 2 || Dims > MaxDims)
        return 0;
      for (size_t I = 0; I < Count; ++I) {
        SmallVector<const SCEV *, 4> Subscripts;
        computeAccessFunctions(C->SE, S(Exprs[I]), Subscripts, Sizes);
        if (Subscripts.size() != Dims)
          return 0;
        for (size_t D = 0; D < Dims; ++D)
          OutSubscripts[I * Dims + D] = P(Subscripts[D]);
      }
      for (size_t D = 0; D + 1 < Dims; ++D)
        OutSizes[D] = P(Sizes[D]);
      return Dims;
    },
    [](PrFunctionCtx *C, const PrScev *Expr, uint64_t ElementSize, const PrScev **OutSizes,
       const PrScev **OutSubscripts, size_t MaxDims) -> size_t {
      Type *Ty = S(Expr)->getType();
      if (!Ty->isIntegerTy())
        return 0;
      SmallVector<const SCEV *, 4> Subscripts, Sizes;
      if (!delinearizeFixedSizeArray(C->SE, S(Expr), Subscripts, Sizes,
                                     C->SE.getConstant(Ty, ElementSize)))
        return 0;
      size_t Dims = Subscripts.size();
      if (Dims < 2 || Dims > MaxDims || Sizes.size() < Dims - 1)
        return 0;
      for (size_t D = 0; D < Dims; ++D)
        OutSubscripts[D] = P(Subscripts[D]);
      for (size_t D = 0; D + 1 < Dims; ++D)
        OutSizes[D] = P(Sizes[D]);
      return Dims;
    },
    [](PrFunctionCtx *C, LLVMTypeRef Ty) -> uint64_t {
      Type *T = unwrap(Ty);
      if (!T->isSized())
        return 0;
      return C->F.getDataLayout().getTypeStoreSize(T).getKnownMinValue();
    },
    // Code generation.
    [](PrFunctionCtx *C, const PrScev *E, PrLoop *const *Loops, const LLVMValueRef *Counters,
       size_t Count, LLVMTypeRef Ty, LLVMValueRef Before) -> LLVMValueRef {
      auto *At = dyn_cast<Instruction>(unwrap(Before));
      if (!At)
        return nullptr;
      CounterRewriter Rewriter(C->SE);
      for (size_t I = 0; I < Count; ++I)
        Rewriter.Counters[L(Loops[I])] = unwrap(Counters[I]);
      const SCEV *Rewritten = Rewriter.visit(S(E));
      if (Rewriter.Failed || isa<SCEVCouldNotCompute>(Rewritten))
        return nullptr;
      SCEVExpander Expander(C->SE, "polyrust");
      Expander.disableCanonicalMode();
      if (!Expander.isSafeToExpandAt(Rewritten, At))
        return nullptr;
      return wrap(Expander.expandCodeFor(Rewritten, unwrap(Ty), At->getIterator()));
    },
    [](PrFunctionCtx *C, PrLoop *Lp, LLVMValueRef Before) -> LLVMValueRef {
      auto *At = dyn_cast<Instruction>(unwrap(Before));
      if (!At)
        return nullptr;
      Type *I64 = Type::getInt64Ty(C->F.getContext());
      const SCEV *Counter = C->SE.getAddRecExpr(C->SE.getZero(I64), C->SE.getOne(I64), L(Lp),
                                                SCEV::FlagAnyWrap);
      SCEVExpander Expander(C->SE, "polyrust");
      if (!Expander.isSafeToExpandAt(Counter, At))
        return nullptr;
      return wrap(Expander.expandCodeFor(Counter, I64, At->getIterator()));
    },
    [](LLVMBasicBlockRef Block, LLVMBasicBlockRef From, LLVMBasicBlockRef To) {
      unwrap(Block)->replacePhiUsesWith(unwrap(From), unwrap(To));
    },
    [](PrFunctionCtx *C, LLVMBasicBlockRef Block, PrLoop *Lp) {
      L(Lp)->addBasicBlockToLoop(unwrap(Block), C->LI);
    },
    [](const LLVMBasicBlockRef *Blocks, size_t Count) {
      SmallPtrSet<BasicBlock *, 32> Abandoned;
      for (size_t I = 0; I < Count; ++I)
        Abandoned.insert(unwrap(Blocks[I]));
      for (BasicBlock *BB : Abandoned) {
        if (Instruction *Term = BB->getTerminator()) {
          // Only blocks that stay need their phis fixed; ours lose theirs below. A phi
          // may have no value from BB yet (generation stopped before giving it one, as
          // for an LCSSA phi of the exit), so each is asked, not assumed to have one.
          SmallPtrSet<BasicBlock *, 4> Seen;
          for (BasicBlock *Succ : successors(BB))
            if (!Abandoned.contains(Succ) && Seen.insert(Succ).second)
              for (PHINode &Phi : Succ->phis())
                for (int Index = Phi.getBasicBlockIndex(BB); Index >= 0;
                     Index = Phi.getBasicBlockIndex(BB))
                  Phi.removeIncomingValue(Index, /*DeletePHIIfEmpty=*/false);
          Term->eraseFromParent();
        }
        new UnreachableInst(BB->getContext(), BB);
      }
      for (size_t I = 0; I < Count; ++I)
        for (PHINode &Phi : make_early_inc_range(unwrap(Blocks[I])->phis())) {
          Phi.replaceAllUsesWith(PoisonValue::get(Phi.getType()));
          Phi.eraseFromParent();
        }
    },
    [](PrFunctionCtx *C, LLVMBasicBlockRef Block, LLVMBasicBlockRef IDom) {
      C->DT.addNewBlock(unwrap(Block), unwrap(IDom));
    },
    // Loop metadata.
    [](PrLoop *Lp, const char *Tag) -> int {
      MDNode *ID = L(Lp)->getLoopID();
      return ID && hasLoopProperty(ID, Tag);
    },
    [](PrLoop *Lp, const char *Tag) {
      Loop *Lo = L(Lp);
      Lo->setLoopID(withLoopProperties(Lo->getHeader()->getContext(), Lo->getLoopID(), Tag, nullptr));
    },
    [](LLVMValueRef Branch, const char *Tag, LLVMMetadataRef Group) {
      auto *Br = cast<Instruction>(unwrap(Branch));
      Br->setMetadata(LLVMContext::MD_loop,
                      withLoopProperties(Br->getContext(), Br->getMetadata(LLVMContext::MD_loop), Tag,
                                         Group ? cast<MDNode>(unwrap(Group)) : nullptr));
    },
    [](LLVMValueRef Fn) {
      return wrap(MDNode::getDistinct(unwrap<Function>(Fn)->getContext(), {}));
    },
    [](LLVMValueRef Inst, LLVMMetadataRef Group) {
      auto *I = cast<Instruction>(unwrap(Inst));
      SmallVector<Metadata *, 4> Groups;
      if (MDNode *Old = I->getMetadata(LLVMContext::MD_access_group)) {
        if (Old->getNumOperands() == 0)
          Groups.push_back(Old); // a single group is an empty distinct node
        else
          for (const MDOperand &Op : Old->operands())
            Groups.push_back(Op.get());
      }
      Groups.push_back(unwrap(Group));
      I->setMetadata(LLVMContext::MD_access_group,
                     Groups.size() == 1 ? cast<MDNode>(Groups[0]) : MDNode::get(I->getContext(), Groups));
    },
    [](LLVMValueRef Fn, size_t Count, LLVMMetadataRef *Scopes) {
      MDBuilder MDB(unwrap<Function>(Fn)->getContext());
      MDNode *Domain = MDB.createAnonymousAliasScopeDomain("polyrust");
      for (size_t K = 0; K < Count; ++K)
        Scopes[K] = wrap(MDB.createAnonymousAliasScope(Domain));
    },
    [](LLVMValueRef Inst, LLVMMetadataRef Scope, const LLVMMetadataRef *Others, size_t Count) {
      auto *I = cast<Instruction>(unwrap(Inst));
      LLVMContext &Ctx = I->getContext();
      SmallVector<Metadata *, 8> NoAlias;
      for (size_t K = 0; K < Count; ++K)
        NoAlias.push_back(unwrap(Others[K]));
      I->setMetadata(LLVMContext::MD_alias_scope,
                     MDNode::concatenate(I->getMetadata(LLVMContext::MD_alias_scope),
                                         MDNode::get(Ctx, {unwrap(Scope)})));
      if (!NoAlias.empty())
        I->setMetadata(LLVMContext::MD_noalias,
                       MDNode::concatenate(I->getMetadata(LLVMContext::MD_noalias), MDNode::get(Ctx, NoAlias)));
    },
    // Alias analysis.
    [](PrFunctionCtx *C, LLVMValueRef A, uint64_t ASize, LLVMValueRef B, uint64_t BSize) {
      AliasResult R = C->AA.alias(MemoryLocation(unwrap(A), locationSize(ASize)),
                                  MemoryLocation(unwrap(B), locationSize(BSize)));
      switch (R) {
      case AliasResult::NoAlias:
        return PR_NO_ALIAS;
      case AliasResult::MustAlias:
        return PR_MUST_ALIAS;
      case AliasResult::PartialAlias:
        return PR_PARTIAL_ALIAS;
      default:
        return PR_MAY_ALIAS;
      }
    },
    [](PrFunctionCtx *C, LLVMValueRef Call) {
      auto *CB = dyn_cast<CallBase>(unwrap(Call));
      if (!CB)
        return PR_MEM_READ_WRITE;
      MemoryEffects ME = C->AA.getMemoryEffects(CB);
      if (ME.doesNotAccessMemory())
        return PR_MEM_NONE;
      if (ME.onlyAccessesErrnoMem() && !isRefSet(ME.getModRef(IRMemLocation::ErrnoMem)))
        return PR_MEM_ERRNO_WRITE;
      if (ME.onlyReadsMemory())
        return PR_MEM_READ;
      if (ME.onlyWritesMemory())
        return PR_MEM_WRITE;
      return PR_MEM_READ_WRITE;
    },
    // TargetTransformInfo.
    [](PrFunctionCtx *C) -> unsigned {
      TypeSize Bits = C->TTI.getRegisterBitWidth(TargetTransformInfo::RGK_FixedWidthVector);
      return static_cast<unsigned>(Bits.getFixedValue());
    },
    [](PrFunctionCtx *C, unsigned Level) -> unsigned {
      auto Size = C->TTI.getCacheSize(Level == 1 ? TargetTransformInfo::CacheLevel::L1D
                                                 : TargetTransformInfo::CacheLevel::L2D);
      return Size.value_or(0);
    },
    [](PrFunctionCtx *C) -> unsigned {
      return C->TTI.getNumberOfRegisters(C->TTI.getRegisterClassForType(/*Vector=*/true));
    },
    [](LLVMValueRef At, PrLoop *Lp) -> char * {
      DebugLoc Loc;
      if (auto *I = At ? dyn_cast<Instruction>(unwrap(At)) : nullptr)
        Loc = I->getDebugLoc();
      else if (Lp)
        Loc = L(Lp)->getStartLoc();
      if (!Loc)
        return nullptr;
      return copyString((Loc->getFilename() + ":" + Twine(Loc.getLine()) + ":" + Twine(Loc.getCol())).str());
    },
    // Values and diagnostics.
    [](LLVMValueRef V) {
      // An unnamed value of type void (a store, a branch) has no slot: LLVM prints it
      // as <badref>, after numbering the whole function again to look for it (a store
      // asked for its name cost a numbering of NPB SP's main; detection asks every
      // instruction).
      if (const auto *I = dyn_cast<Instruction>(unwrap(V)); I && I->getType()->isVoidTy() && !I->hasName())
        return copyString("<badref>");
      std::string Text;
      raw_string_ostream OS(Text);
      if (const Function *F = functionOf(unwrap(V)))
        unwrap(V)->printAsOperand(OS, /*PrintType=*/false, slotsOf(*F));
      else
        unwrap(V)->printAsOperand(OS, /*PrintType=*/false);
      return copyString(Text);
    },
    [](LLVMValueRef V) {
      std::string Text;
      raw_string_ostream OS(Text);
      if (const Function *F = functionOf(unwrap(V)))
        unwrap(V)->print(OS, slotsOf(*F));
      else
        unwrap(V)->print(OS);
      return copyString(Text);
    },
    [](LLVMValueRef Ref) -> char * { return sourceName(unwrap(Ref)); },
    [](PrFunctionCtx *C, PrRemarkKind Kind, const char *Name, LLVMValueRef At, PrLoop *Lp,
       LLVMBasicBlockRef Region, const char *Message) {
      BasicBlock *Block = Region ? unwrap(Region)
                          : Lp   ? L(Lp)->getHeader()
                                 : &C->F.getEntryBlock();
      DiagnosticLocation Loc;
      if (auto *I = At ? dyn_cast<Instruction>(unwrap(At)) : nullptr)
        Loc = I->getDebugLoc();
      if (!Loc.isValid() && Lp)
        Loc = L(Lp)->getStartLoc();
      if (!Loc.isValid())
        for (Instruction &I : *Block)
          if (I.getDebugLoc()) {
            Loc = I.getDebugLoc();
            break;
          }
      if (!Loc.isValid() && C->F.getSubprogram())
        Loc = DiagnosticLocation(C->F.getSubprogram());
      switch (Kind) {
      case PR_REMARK_PASSED:
        C->ORE.emit(OptimizationRemark("polyrust", Name, Loc, Block) << Message);
        break;
      case PR_REMARK_MISSED:
        C->ORE.emit(OptimizationRemarkMissed("polyrust", Name, Loc, Block) << Message);
        break;
      case PR_REMARK_ANALYSIS:
        C->ORE.emit(OptimizationRemarkAnalysis("polyrust", Name, Loc, Block) << Message);
        break;
      }
    },
    [](PrFunctionCtx *C, PrSeverity Severity, const char *Message) {
      DiagnosticSeverity Level = Severity == PR_SEVERITY_ERROR     ? DS_Error
                                 : Severity == PR_SEVERITY_WARNING ? DS_Warning
                                                                   : DS_Note;
      C->F.getContext().diagnose(DiagnosticInfoGeneric(Twine("polyrust: ") + Message, Level));
    },
    [](char *Text) { std::free(Text); },
    [](const char *Stage) -> void * {
      if (!TimePassesIsEnabled)
        return nullptr;
      return new NamedRegionTimer(Stage, (Twine("polyrust: ") + Stage).str(), "polyrust",
                                  "polyrust stages");
    },
    [](void *Timer) { delete static_cast<NamedRegionTimer *>(Timer); },
};

PrOptions currentOptions() {
  PrOptions O;
  O.max_operations = MaxOperations;
  O.tiling = Tiling;
  O.tiling_given = Tiling.getNumOccurrences() > 0;
  O.tile_sizes = TileSizes.empty() ? nullptr : &TileSizes.front();
  O.tile_sizes_len = TileSizes.size();
  O.sica_rho = SicaRho;
  O.export_dir = ExportDir.c_str();
  O.import_dir = ImportDir.c_str();
  O.l1_cache = L1Cache.c_str();
  O.l2_cache = L2Cache.c_str();
  O.simd_width = SimdWidth;
  O.codegen = Codegen;
  O.force_codegen = ForceCodegen;
  O.allow_reassociation = AllowReassociation;
  O.time_tiling = TimeTiling;
  O.register_tiling = RegisterTiling;
  O.exprprop = Exprprop;
  O.quov = Quov;
  O.fusion = Fusion;
  O.debug_remarks = DebugRemarks;
  O.profile_generate = ProfileGenerate.getNumOccurrences() > 0;
  O.profile_generate_path = ProfileGenerate.c_str();
  O.profile_use = ProfileUse.c_str();
  O.instrument = Instrument.c_str();
  O.round = 0;
  return O;
}

// Gathers the analyses of one function; SCEV gives up on optnone code, so such
// functions are never handed to Rust.
template <typename Body> auto withFunctionCtx(Function &F, FunctionAnalysisManager &FAM, Body Run) {
  PrFunctionCtx Ctx{F,
                    FAM.getResult<LoopAnalysis>(F),
                    FAM.getResult<DominatorTreeAnalysis>(F),
                    FAM.getResult<PostDominatorTreeAnalysis>(F),
                    FAM.getResult<ScalarEvolutionAnalysis>(F),
                    FAM.getResult<AAManager>(F),
                    FAM.getResult<TargetIRAnalysis>(F),
                    FAM.getResult<OptimizationRemarkEmitterAnalysis>(F)};
  return Run(Ctx);
}

// Regions rewritten per function at most; each needs a fresh run over fresh analyses.
constexpr uint32_t MaxRounds = 16;

// Runs Rust on a function until it rewrites no more regions (Rust rewrites one region
// per call and tags the loops it has handled, so the next call sees the others), then
// promotes the stack slots generated code keeps scalars in and folds what code
// generation left for InstCombine, before the vectorizer sees the loops.
bool runOnFunction(Function &F, FunctionAnalysisManager &FAM) {
  if (F.isDeclaration() || F.hasOptNone())
    return false;
  PrOptions Options = currentOptions();
  // Detection expects loops in simplified and LCSSA form (a preheader, dedicated exits,
  // values leaving a loop through phis in its exits). Passes before the vectorizer's
  // start (SimplifyCFG, InstCombine, CHR) can undo that form, and the vectorizer's
  // pipeline restores it right after this pass; restoring it first lets detection see
  // every loop (without it, the nests of the reference BLAS's dgemm were never looked
  // at).
  PreservedAnalyses Simplified = LoopSimplifyPass().run(F, FAM);
  FAM.invalidate(F, Simplified);
  PreservedAnalyses InLcssa = LCSSAPass().run(F, FAM);
  FAM.invalidate(F, InLcssa);
  bool Simplifying = !Simplified.areAllPreserved() || !InLcssa.areAllPreserved();
  bool Changed = false;
  for (Options.round = 0; Options.round < MaxRounds; ++Options.round) {
    bool Rewritten = withFunctionCtx(F, FAM, [&](PrFunctionCtx &Ctx) {
      forgetSlots();
      bool Rewritten = polyrust_run_function(&HostApi, &Ctx, wrap(&F), &Options) != 0;
      forgetSlots();
      return Rewritten;
    });
    if (!Rewritten)
      break;
    Changed = true;
    FAM.invalidate(F, PreservedAnalyses::none());
  }
  if (Changed) {
    FAM.invalidate(F, SROAPass(SROAOptions::ModifyCFG).run(F, FAM));
    FAM.invalidate(F, InstCombinePass().run(F, FAM));
    // The pipeline's common subexpression and dead store elimination ran before this
    // pass. Generated code computes each copy's addresses afresh, and a register
    // tile's copies load and store the same elements (C[i][j] once per copy of k):
    // without merging them, the tile's copies went through memory (the matrix product
    // in register tiles of 4x4 ran 0.105 s, 0.079 s without register tiles, 0.033 s
    // with this). EarlyCSE rather than GVN: GVN also merges blocks, and the structure
    // of the generated code is what the lit tests of code generation read.
    FAM.invalidate(F, EarlyCSEPass(/*UseMemorySSA=*/true).run(F, FAM));
    FAM.invalidate(F, DSEPass().run(F, FAM));
    // Generated code keeps a promoted scalar in its element (`P[i][j] += G[i][k] *
    // X[j][k]` loads and stores P[i][j] in every iteration of k): LICM holds it in a
    // register again, as it did in the original before polyrust ran. The pipeline's
    // next LICM comes after unrolling, whose copies of the address it no longer
    // promotes: without this, the chain went through memory and gram_restrict's
    // product ran 3.5x slower than -O3 (1.24 s against 0.36 s; 0.35 s with it). The
    // loops generated are not rotated yet, and LICM only promotes stores of rotated
    // loops (the store must run whenever the loop is entered).
    LoopPassManager LPM;
    LPM.addPass(LoopRotatePass());
    LPM.addPass(LICMPass(LICMOptions()));
    FunctionPassManager Promote;
    Promote.addPass(createFunctionToLoopPassAdaptor(std::move(LPM), /*UseMemorySSA=*/true));
    FAM.invalidate(F, Promote.run(F, FAM));
  }
  return Changed || Simplifying;
}

struct PolyrustModulePass : PassInfoMixin<PolyrustModulePass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &MAM) {
    auto &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
    bool Changed = false;
    for (Function &F : M)
      if (runOnFunction(F, FAM)) {
        Changed = true;
        FAM.invalidate(F, PreservedAnalyses::none());
      }
    return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

struct PolyrustFunctionPass : PassInfoMixin<PolyrustFunctionPass> {
  PreservedAnalyses run(Function &F, FunctionAnalysisManager &FAM) {
    return runOnFunction(F, FAM) ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
};

struct PolyrustPrinterPass : PassInfoMixin<PolyrustPrinterPass> {
  PrPrinter Which;
  explicit PolyrustPrinterPass(PrPrinter Which) : Which(Which) {}
  PreservedAnalyses run(Function &F, FunctionAnalysisManager &FAM) {
    if (F.isDeclaration())
      return PreservedAnalyses::all();
    if (F.hasOptNone()) {
      errs() << "polyrust: function '" << F.getName() << "' is optnone; not analysed\n";
      return PreservedAnalyses::all();
    }
    PrOptions Options = currentOptions();
    withFunctionCtx(F, FAM, [&](PrFunctionCtx &Ctx) {
      forgetSlots();
      char *Text = polyrust_print_function(&HostApi, &Ctx, wrap(&F), &Options, Which);
      forgetSlots();
      if (Text) {
        errs() << Text;
        polyrust_free_string(Text);
      }
      return 0;
    });
    return PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

bool isAutomaticLevel(OptimizationLevel Level) {
  return Level == OptimizationLevel::O2 || Level == OptimizationLevel::O3;
}

} // namespace

extern "C" void polyrust_register_pass_builder_callbacks(PassBuilder *PB) {
  PB->registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (Name != "polyrust")
          return false;
        MPM.addPass(PolyrustModulePass());
        return true;
      });
  PB->registerPipelineParsingCallback(
      [](StringRef Name, FunctionPassManager &FPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "polyrust-function") {
          FPM.addPass(PolyrustFunctionPass());
          return true;
        }
        static const struct {
          const char *Name;
          PrPrinter Which;
        } Printers[] = {{"print<polyrust-loops>", PR_PRINT_LOOPS},
                        {"print<polyrust-detect>", PR_PRINT_DETECT},
                        {"print<polyrust-scops>", PR_PRINT_SCOPS},
                        {"print<polyrust-ast>", PR_PRINT_AST},
                        {"print<polyrust-deps>", PR_PRINT_DEPS}};
        for (const auto &Printer : Printers)
          if (Name == Printer.Name) {
            FPM.addPass(PolyrustPrinterPass(Printer.Which));
            return true;
          }
        return false;
      });
  PB->registerVectorizerStartEPCallback([](FunctionPassManager &FPM, OptimizationLevel Level) {
    if (Enable && isAutomaticLevel(Level))
      FPM.addPass(PolyrustFunctionPass());
  });
}
