// The host table of polyrust_host.h: thin access to what only C++ can reach for one
// function (LoopInfo, the dominator trees, ScalarEvolution and its expander,
// delinearization, alias analysis, TargetTransformInfo, metadata, value printing, the
// remark emitter, timers) and the passes Rust runs between rounds. Each entry does one
// LLVM call or a few; what to ask and what the answers mean is decided in Rust.

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
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ModuleSlotTracker.h"
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
  }
  return PreservedAnalyses::all();
}

SmallVector<const SCEV *, 8> scevs(const PrScev *const *Exprs, size_t Count) {
  SmallVector<const SCEV *, 8> Out;
  for (size_t I = 0; I < Count; ++I)
    Out.push_back(S(Exprs[I]));
  return Out;
}

void pushAll(PrScevList *List, ArrayRef<const SCEV *> Exprs) {
  for (const SCEV *E : Exprs)
    List->push(List->list, P(E));
}

// An expression of the kind of `Like` over new operands, as SCEVRewriteVisitor makes it.
const SCEV *withOperands(ScalarEvolution &SE, const SCEV *Like, SmallVector<const SCEV *, 8> Ops) {
  switch (Like->getSCEVType()) {
  case scPtrToInt:
    return SE.getPtrToIntExpr(Ops[0], Like->getType());
  case scTruncate:
    return SE.getTruncateExpr(Ops[0], Like->getType());
  case scZeroExtend:
    return SE.getZeroExtendExpr(Ops[0], Like->getType());
  case scSignExtend:
    return SE.getSignExtendExpr(Ops[0], Like->getType());
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
    return SE.getSMaxExpr(Ops);
  case scUMaxExpr:
    return SE.getUMaxExpr(Ops);
  case scSMinExpr:
    return SE.getSMinExpr(Ops);
  case scUMinExpr:
    return SE.getUMinExpr(Ops);
  case scSequentialUMinExpr:
    return SE.getUMinExpr(Ops, /*Sequential=*/true);
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
    [](PrFunctionCtx *C, LLVMValueRef V) -> int { return C->SE.isSCEVable(unwrap(V)->getType()); },
    [](PrFunctionCtx *C, LLVMValueRef V) { return P(C->SE.getSCEV(unwrap(V))); },
    [](PrFunctionCtx *C, const PrScev *E, PrLoop *Scope) { return P(C->SE.getSCEVAtScope(S(E), L(Scope))); },
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
    [](PrFunctionCtx *C, const PrScev *E) -> int { return C->SE.isKnownPositive(S(E)); },
    // Building expressions.
    [](PrFunctionCtx *C, const PrScev *Like, uint64_t Value) { return P(C->SE.getConstant(S(Like)->getType(), Value)); },
    [](PrFunctionCtx *C, LLVMValueRef V) { return P(C->SE.getUnknown(unwrap(V))); },
    [](PrFunctionCtx *C, const PrScev *A, const PrScev *B) { return P(C->SE.getAddExpr(S(A), S(B))); },
    [](PrFunctionCtx *C, const PrScev *A, const PrScev *B) { return P(C->SE.getMulExpr(S(A), S(B))); },
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
      SmallVector<const SCEV *, 8> In = scevs(Terms, Count);
      SmallVector<const SCEV *, 4> Out;
      findArrayDimensions(C->SE, In, Out, S(ElementSize));
      pushAll(Sizes, Out);
    },
    [](PrFunctionCtx *C, const PrScev *E, const PrScev *const *Sizes, size_t Count, PrScevList *Subscripts) {
      SmallVector<const SCEV *, 8> In = scevs(Sizes, Count);
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
    [](PrFunctionCtx *C, LLVMTypeRef Ty) -> uint64_t {
      Type *T = unwrap(Ty);
      if (!T->isSized())
        return 0;
      return C->F.getDataLayout().getTypeStoreSize(T).getKnownMinValue();
    },
    // Code generation.
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
    [](LLVMValueRef InContextOf, const LLVMMetadataRef *Ops, size_t Count, int SelfFirst) {
      SmallVector<Metadata *, 8> Operands;
      if (SelfFirst)
        Operands.push_back(nullptr);
      for (size_t I = 0; I < Count; ++I)
        Operands.push_back(unwrap(Ops[I]));
      MDNode *Node = MDNode::getDistinct(unwrap(InContextOf)->getContext(), Operands);
      if (SelfFirst)
        Node->replaceOperandWith(0, Node);
      return wrap(Node);
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
    [](PrFunctionCtx *C, LLVMValueRef A, uint64_t ASize, LLVMValueRef B, uint64_t BSize) -> PrAliasResult {
      AliasResult R = C->AA.alias(MemoryLocation(unwrap(A), locationSize(ASize)),
                                  MemoryLocation(unwrap(B), locationSize(BSize)));
      return static_cast<PrAliasResult>(static_cast<AliasResult::Kind>(R)); // the same numbering
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
    [](PrFunctionCtx *C, PrRemarkKind Kind, const char *Name, LLVMValueRef LocatedAt, PrLoop *Lp,
       LLVMBasicBlockRef At, const char *Message) {
      BasicBlock *Block = unwrap(At);
      DiagnosticLocation Loc;
      if (LocatedAt)
        Loc = cast<Instruction>(unwrap(LocatedAt))->getDebugLoc();
      else if (Lp)
        Loc = L(Lp)->getStartLoc();
      else if (C->F.getSubprogram())
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
