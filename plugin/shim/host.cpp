// The host table of polyrust_host.h: thin access to what only C++ can reach for one
// function (LoopInfo, the dominator trees, ScalarEvolution and its expander,
// delinearization, alias analysis, TargetTransformInfo, loop IDs, distinct metadata
// nodes, value printing, debug names, the remark emitter, timers) and the passes Rust
// runs between rounds. Each entry does one LLVM call or a few; what to ask and what the
// answers mean is decided in Rust, which reaches what LLVM's C API offers by itself.

#include "host.h"
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
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ModuleSlotTracker.h"
#include "llvm/Support/Timer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar/IndVarSimplify.h"
#include "llvm/Transforms/Scalar/DeadStoreElimination.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/LICM.h"
#include "llvm/Transforms/Scalar/LoopPassManager.h"
#include "llvm/Transforms/Scalar/LoopRotation.h"
#include "llvm/Transforms/Scalar/SROA.h"
#include "llvm/Transforms/Utils/LCSSA.h"
#include "llvm/Transforms/Utils/CodeExtractor.h"
#include "llvm/Transforms/Utils/LoopSimplify.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

#include <cstdlib>
#include <cstring>
#include <memory>

using namespace llvm;

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

// Strings handed to Rust are malloc'ed; Rust frees them.
char *copyString(StringRef Text) { return strndup(Text.data(), Text.size()); }

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
          return copyString(Var->getName());
    return nullptr;
  }
  for (auto Records : {findDVRDeclares(V), findDVRValues(V)})
    for (DbgVariableRecord *R : Records)
      if (!R->hasArgList() && R->getVariable() && !R->getVariable()->getName().empty() &&
          describesValueItself(R->getExpression()))
        return copyString(R->getVariable()->getName());
  // A local array under assignment tracking (clang -O2 -g) has no declare record: the
  // stores to it are linked to its variable through the alloca's DIAssignID.
  if (auto *I = dyn_cast<Instruction>(V))
    for (DbgVariableRecord *R : at::getDVRAssignmentMarkers(I))
      if (R->getVariable() && !R->getVariable()->getName().empty())
        return copyString(R->getVariable()->getName());
  return nullptr;
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

PreservedAnalyses runPass(Function &F, FunctionAnalysisManager &FAM, PrFunctionPass Pass) {
  switch (Pass) {
  case PR_PASS_LOOP_SIMPLIFY:
    return LoopSimplifyPass().run(F, FAM);
  case PR_PASS_LCSSA:
    return LCSSAPass().run(F, FAM);
  case PR_PASS_SROA_MODIFY_CFG:
    return SROAPass(SROAOptions::ModifyCFG).run(F, FAM);
  case PR_PASS_INSTCOMBINE:
    return InstCombinePass().run(F, FAM);
  case PR_PASS_EARLY_CSE_MEMSSA:
    return EarlyCSEPass(/*UseMemorySSA=*/true).run(F, FAM);
  case PR_PASS_DSE:
    return DSEPass().run(F, FAM);
  case PR_PASS_ROTATE_AND_LICM: {
    LoopPassManager LPM;
    LPM.addPass(LoopRotatePass());
    LPM.addPass(LICMPass(LICMOptions()));
    FunctionPassManager Promote;
    Promote.addPass(createFunctionToLoopPassAdaptor(std::move(LPM), /*UseMemorySSA=*/true));
    return Promote.run(F, FAM);
  }
  case PR_PASS_LICM_AND_INDVARS: {
    LoopPassManager Hoist;
    Hoist.addPass(LICMPass(LICMOptions()));
    LoopPassManager Widen;
    Widen.addPass(IndVarSimplifyPass());
    FunctionPassManager Both;
    Both.addPass(createFunctionToLoopPassAdaptor(std::move(Hoist), /*UseMemorySSA=*/true));
    Both.addPass(createFunctionToLoopPassAdaptor(std::move(Widen)));
    return Both.run(F, FAM);
  }
  }
  return PreservedAnalyses::all();
}

ArrayRef<const SCEV *> scevs(const PrScev *const *Exprs, size_t Count) {
  return ArrayRef(reinterpret_cast<const SCEV *const *>(Exprs), Count);
}

void pushAll(PrScevList *List, ArrayRef<const SCEV *> Exprs) {
  for (const SCEV *E : Exprs)
    List->push(List->list, P(E));
}

// An expression of the kind of `Like` over new operands, as SCEVRewriteVisitor makes it.
const SCEV *withOperands(ScalarEvolution &SE, const SCEV *Like, ArrayRef<const SCEV *> New) {
  SmallVector<const SCEV *, 8> Ops(New);
  switch (SCEVTypes Kind = Like->getSCEVType()) {
  case scPtrToInt:
  case scTruncate:
  case scZeroExtend:
  case scSignExtend:
    return SE.getCastExpr(Kind, Ops[0], Like->getType());
  case scAddExpr:
    return SE.getAddExpr(Ops);
  case scMulExpr:
    return SE.getMulExpr(Ops);
  case scUDivExpr:
    return SE.getUDivExpr(Ops[0], Ops[1]);
  case scAddRecExpr: {
    auto *Rec = cast<SCEVAddRecExpr>(Like);
    return SE.getAddRecExpr(Ops, Rec->getLoop(), Rec->getNoWrapFlags());
  }
  case scSMaxExpr:
  case scUMaxExpr:
  case scSMinExpr:
  case scUMinExpr:
    return SE.getMinMaxExpr(Kind, Ops);
  case scSequentialUMinExpr:
    return SE.getSequentialMinMaxExpr(Kind, Ops);
  default:
    return Like;
  }
}

} // namespace

extern const PrHostApi PolyrustHostApi = {
    PR_HOST_API_VERSION,
    // Rounds.
    [](PrFunctionRun *R) {
      forgetSlots();
      Function &F = R->F;
      FunctionAnalysisManager &FAM = R->FAM;
      return new PrFunctionCtx{F,
                               FAM.getResult<LoopAnalysis>(F),
                               FAM.getResult<DominatorTreeAnalysis>(F),
                               FAM.getResult<PostDominatorTreeAnalysis>(F),
                               FAM.getResult<ScalarEvolutionAnalysis>(F),
                               FAM.getResult<AAManager>(F),
                               FAM.getResult<TargetIRAnalysis>(F),
                               FAM.getResult<OptimizationRemarkEmitterAnalysis>(F)};
    },
    [](PrFunctionCtx *C) {
      forgetSlots();
      delete C;
    },
    [](PrFunctionRun *R, PrFunctionPass Pass) -> int {
      PreservedAnalyses Preserved = runPass(R->F, R->FAM, Pass);
      R->FAM.invalidate(R->F, Preserved);
      return !Preserved.areAllPreserved();
    },
    [](PrFunctionRun *R) { R->FAM.invalidate(R->F, PreservedAnalyses::none()); },
    // Loop tree.
    [](PrFunctionCtx *C) -> size_t { return C->LI.getTopLevelLoops().size(); },
    [](PrFunctionCtx *C, size_t I) { return P(C->LI.getTopLevelLoops()[I]); },
    [](PrLoop *Lp) -> size_t { return L(Lp)->getSubLoops().size(); },
    [](PrLoop *Lp, size_t I) { return P(L(Lp)->getSubLoops()[I]); },
    [](PrLoop *Lp) { return P(L(Lp)->getParentLoop()); },
    [](PrLoop *Lp) { return wrap(L(Lp)->getLoopPreheader()); },
    [](PrLoop *Lp) { return wrap(L(Lp)->getLoopLatch()); },
    [](PrLoop *Lp) -> size_t { return L(Lp)->getNumBlocks(); },
    [](PrLoop *Lp, size_t I) { return wrap(L(Lp)->getBlocks()[I]); },
    [](PrFunctionCtx *C, LLVMBasicBlockRef B) { return P(C->LI.getLoopFor(unwrap(B))); },
    [](PrLoop *Lp) { return wrap(L(Lp)->getStartLoc().getAsMDNode()); },
    // Dominance.
    [](PrFunctionCtx *C, LLVMBasicBlockRef A, LLVMBasicBlockRef B) -> int {
      return C->DT.dominates(unwrap(A), unwrap(B));
    },
    [](PrFunctionCtx *C, LLVMBasicBlockRef A, LLVMBasicBlockRef B) -> int {
      return C->PDT.dominates(unwrap(A), unwrap(B));
    },
    // ScalarEvolution.
    [](PrFunctionCtx *C, LLVMValueRef V) { return P(C->SE.getSCEV(unwrap(V))); },
    [](PrFunctionCtx *C, const PrScev *E, PrLoop *Scope) { return P(C->SE.getSCEVAtScope(S(E), L(Scope))); },
    [](PrFunctionCtx *C, PrLoop *Lp) { return P(C->SE.getBackedgeTakenCount(L(Lp))); },
    [](PrFunctionCtx *C, PrLoop *Lp) { return P(C->SE.getConstantMaxBackedgeTakenCount(L(Lp))); },
    [](PrFunctionCtx *C, const PrScev *Taken, PrLoop *Lp, int OwnType) {
      return P(OwnType ? C->SE.getTripCountFromExitCount(S(Taken), S(Taken)->getType(), L(Lp))
                       : C->SE.getTripCountFromExitCount(S(Taken)));
    },
    [](const PrScev *E) { return static_cast<PrScevKind>(S(E)->getSCEVType()); },
    [](const PrScev *E) -> size_t { return S(E)->operands().size(); },
    [](const PrScev *E, size_t I) { return P(S(E)->operands()[I]); },
    [](const PrScev *E) -> unsigned {
      if (auto *N = dyn_cast<SCEVNAryExpr>(S(E)))
        return static_cast<unsigned>(N->getNoWrapFlags());
      return 0;
    },
    [](const PrScev *E) { return wrap(S(E)->getType()); },
    [](const PrScev *E) -> LLVMValueRef {
      if (auto *K = dyn_cast<SCEVConstant>(S(E)))
        return wrap(K->getValue());
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
    [](PrFunctionCtx *C, const PrScev *E, LLVMTypeRef Ty, LLVMValueRef Before, int Canonical) -> LLVMValueRef {
      auto *At = dyn_cast<Instruction>(unwrap(Before));
      if (!At)
        return nullptr;
      SCEVExpander Expander(C->SE, "polyrust");
      if (!Canonical)
        Expander.disableCanonicalMode();
      if (!Expander.isSafeToExpandAt(S(E), At))
        return nullptr;
      return wrap(Expander.expandCodeFor(S(E), unwrap(Ty), At->getIterator()));
    },
    // SCEV algebra and facts.
    [](PrFunctionCtx *C, const PrScev *A, const PrScev *B) { return P(C->SE.getMinusSCEV(S(A), S(B))); },
    [](PrFunctionCtx *C, const PrScev *E) { return P(C->SE.getPointerBase(S(E))); },
    [](PrFunctionCtx *C, const PrScev *E) -> int { return C->SE.isKnownNonNegative(S(E)); },
    // Building expressions.
    [](PrFunctionCtx *C, LLVMTypeRef Ty, int64_t Value) {
      return P(C->SE.getConstant(unwrap(Ty), static_cast<uint64_t>(Value), /*isSigned=*/true));
    },
    [](PrFunctionCtx *C, LLVMValueRef V) { return P(C->SE.getUnknown(unwrap(V))); },
    [](PrFunctionCtx *C, const PrScev *A, const PrScev *B) { return P(C->SE.getAddExpr(S(A), S(B))); },
    [](PrFunctionCtx *C, const PrScev *A, const PrScev *B) { return P(C->SE.getMulExpr(S(A), S(B))); },
    [](PrFunctionCtx *C, const PrScev *Start, const PrScev *Step, PrLoop *Lp) {
      return P(C->SE.getAddRecExpr(S(Start), S(Step), L(Lp), SCEV::FlagAnyWrap));
    },
    [](PrFunctionCtx *C, const PrScev *E, LLVMTypeRef Ty) {
      return P(C->SE.getTruncateOrSignExtend(S(E), unwrap(Ty)));
    },
    [](PrFunctionCtx *C, const PrScev *Like, const PrScev *const *Ops, size_t Count) {
      return P(withOperands(C->SE, S(Like), scevs(Ops, Count)));
    },
    // Delinearization.
    [](PrFunctionCtx *C, const PrScev *const *Exprs, size_t Count, PrScevList *Terms) {
      SmallVector<const SCEV *, 8> Out;
      for (const SCEV *E : scevs(Exprs, Count))
        collectParametricTerms(C->SE, E, Out);
      pushAll(Terms, Out);
    },
    [](PrFunctionCtx *C, const PrScev *const *Terms, size_t Count, const PrScev *ElementSize, PrScevList *Sizes) {
      SmallVector<const SCEV *, 8> In(scevs(Terms, Count));
      SmallVector<const SCEV *, 4> Out;
      findArrayDimensions(C->SE, In, Out, S(ElementSize));
      pushAll(Sizes, Out);
    },
    [](PrFunctionCtx *C, const PrScev *E, const PrScev *const *Sizes, size_t Count, PrScevList *Subscripts) {
      SmallVector<const SCEV *, 8> In(scevs(Sizes, Count));
      SmallVector<const SCEV *, 4> Out;
      computeAccessFunctions(C->SE, S(E), Out, In);
      pushAll(Subscripts, Out);
    },
    [](PrFunctionCtx *C, const PrScev *E, const PrScev *ElementSize, PrScevList *Subscripts,
       PrScevList *Sizes) -> int {
      SmallVector<const SCEV *, 4> OutSubscripts, OutSizes;
      if (!delinearizeFixedSizeArray(C->SE, S(E), OutSubscripts, OutSizes, S(ElementSize)))
        return 0;
      pushAll(Subscripts, OutSubscripts);
      pushAll(Sizes, OutSizes);
      return 1;
    },
    // Code generation.
    [](LLVMBasicBlockRef Block, LLVMBasicBlockRef From, LLVMBasicBlockRef To) {
      unwrap(Block)->replacePhiUsesWith(unwrap(From), unwrap(To));
    },
    [](PrFunctionCtx *C, LLVMBasicBlockRef Block, PrLoop *Lp) {
      L(Lp)->addBasicBlockToLoop(unwrap(Block), C->LI);
    },
    [](LLVMValueRef Phi, LLVMBasicBlockRef From) {
      auto *Node = cast<PHINode>(unwrap(Phi));
      for (int Index = Node->getBasicBlockIndex(unwrap(From)); Index >= 0;
           Index = Node->getBasicBlockIndex(unwrap(From)))
        Node->removeIncomingValue(Index, /*DeletePHIIfEmpty=*/false);
    },
    [](PrFunctionCtx *C, LLVMBasicBlockRef Block, LLVMBasicBlockRef IDom) {
      C->DT.addNewBlock(unwrap(Block), unwrap(IDom));
    },
    // Metadata.
    [](PrLoop *Lp) { return wrap(L(Lp)->getLoopID()); },
    [](PrLoop *Lp, LLVMMetadataRef ID) { L(Lp)->setLoopID(cast<MDNode>(unwrap(ID))); },
    [](LLVMContextRef Ctx, LLVMMetadataRef *Ops, size_t Count) {
      return wrap(MDNode::getDistinct(*unwrap(Ctx), ArrayRef(unwrap(Ops), Count)));
    },
    // Alias analysis.
    [](PrFunctionCtx *C, LLVMValueRef A, uint64_t ASize, LLVMValueRef B, uint64_t BSize) -> PrAliasResult {
      auto Size = [](uint64_t Bytes) {
        return Bytes == UINT64_MAX ? LocationSize::beforeOrAfterPointer() : LocationSize::precise(Bytes);
      };
      AliasResult R = C->AA.alias(MemoryLocation(unwrap(A), Size(ASize)), MemoryLocation(unwrap(B), Size(BSize)));
      return static_cast<PrAliasResult>(static_cast<AliasResult::Kind>(R)); // the same numbering
    },
    [](PrFunctionCtx *C, LLVMValueRef Call) -> uint32_t {
      return C->AA.getMemoryEffects(cast<CallBase>(unwrap(Call))).toIntValue();
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
    // Values and diagnostics.
    [](LLVMValueRef Ref, LLVMValueRef Fn, int AsOperand) {
      std::string Text;
      raw_string_ostream OS(Text);
      Value *V = unwrap(Ref);
      const Function *F = Fn ? unwrap<Function>(Fn) : nullptr;
      if (AsOperand && F)
        V->printAsOperand(OS, /*PrintType=*/false, slotsOf(*F));
      else if (AsOperand)
        V->printAsOperand(OS, /*PrintType=*/false);
      else if (F)
        V->print(OS, slotsOf(*F));
      else
        V->print(OS);
      return copyString(Text);
    },
    [](LLVMValueRef Ref) -> char * { return sourceName(unwrap(Ref)); },
    [](PrFunctionCtx *C, PrRemarkKind Kind, const char *Name, LLVMMetadataRef Location, LLVMBasicBlockRef At,
       const char *Message) {
      BasicBlock *Block = unwrap(At);
      DiagnosticLocation Loc;
      if (Location)
        Loc = DebugLoc(cast<DILocation>(unwrap(Location)));
      else if (C->F.getSubprogram())
        Loc = DiagnosticLocation(C->F.getSubprogram());
      auto Emit = [&](auto Remark) { C->ORE.emit(Remark << Message); };
      if (Kind == PR_REMARK_PASSED)
        Emit(OptimizationRemark("polyrust", Name, Loc, Block));
      else if (Kind == PR_REMARK_MISSED)
        Emit(OptimizationRemarkMissed("polyrust", Name, Loc, Block));
      else
        Emit(OptimizationRemarkAnalysis("polyrust", Name, Loc, Block));
    },
    [](PrFunctionCtx *C, PrSeverity Severity, const char *Message) {
      const DiagnosticSeverity Levels[] = {DS_Error, DS_Warning, DS_Note}; // PrSeverity's order
      C->F.getContext().diagnose(DiagnosticInfoGeneric(Twine("polyrust: ") + Message, Levels[Severity]));
    },
    [](const char *Stage) -> void * {
      if (!TimePassesIsEnabled)
        return nullptr;
      return new NamedRegionTimer(Stage, (Twine("polyrust: ") + Stage).str(), "polyrust",
                                  "polyrust stages");
    },
    [](void *Timer) { delete static_cast<NamedRegionTimer *>(Timer); },
    // Outlining.
    [](const LLVMBasicBlockRef *Refs, size_t Count, const char *Suffix) -> LLVMValueRef {
      SmallVector<BasicBlock *, 16> Blocks;
      for (size_t I = 0; I < Count; ++I)
        Blocks.push_back(unwrap(Refs[I]));
      if (Blocks.empty())
        return nullptr;
      CodeExtractor Extractor(Blocks, /*DT=*/nullptr, /*AggregateArgs=*/false, nullptr, nullptr, nullptr,
                              /*AllowVarArgs=*/false, /*AllowAlloca=*/false, nullptr, Suffix);
      if (!Extractor.isEligible())
        return nullptr;
      SetVector<Value *> Inputs, Outputs, Allocas;
      Extractor.findInputsOutputs(Inputs, Outputs, Allocas);
      if (!Outputs.empty())
        return nullptr;
      CodeExtractorAnalysisCache Cache(*Blocks.front()->getParent());
      Function *Outlined = Extractor.extractCodeRegion(Cache);
      if (!Outlined)
        return nullptr;
      for (User *U : Outlined->users())
        if (auto *Call = dyn_cast<CallInst>(U))
          return wrap(Call);
      return nullptr;
    },
};
