// The C++ shim of polyrust: pass registration and the cl::opt objects of the -polyrust-*
// options Rust declares. The analyses and passes only C++ can reach are handed to Rust
// through the table of host.cpp. No optimisation logic lives here: every decision is
// taken in Rust, the rounds of the pass on a function included.

#include "host.h"
#include "polyrust_host.h"

#include "llvm/IR/Function.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <memory>
#include <vector>

using namespace llvm;

namespace {

cl::OptionCategory PolyrustCategory("polyrust options",
                                    "Options of the polyrust polyhedral loop optimizer");

// The value of a choice option: the index of the choice in its declaration.
enum ChoiceIndex : unsigned {};

// Gives a choice option the choices of its declaration, as cl::values does.
struct DeclaredChoices {
  const PrOptionDeclaration &Decl;
  void apply(cl::opt<ChoiceIndex> &O) const {
    for (size_t I = 0; I < Decl.choice_count; ++I)
      O.getParser().addLiteralOption(Decl.choices[I].name, ChoiceIndex(I), Decl.choices[I].help);
  }
};

// One declared option: its cl::opt, and how the value LLVM parsed into it reaches Rust.
struct DeclaredOption {
  std::unique_ptr<cl::Option> Opt;
  std::function<void(PrOptionValue &)> Read;
};

// An option whose value Rust reads as an integer (flags, sizes, a choice's index).
template <typename T, typename... Mods> DeclaredOption integerOption(const Mods &...M) {
  auto *O = new cl::opt<T>(M...);
  return {std::unique_ptr<cl::Option>(O), [O](PrOptionValue &V) { V.integer = O->getValue(); }};
}

// The cl::opt of one declaration. Its strings are Rust's statics, which live as long as
// the plugin.
DeclaredOption makeOption(const PrOptionDeclaration &D) {
  StringRef Name(D.name);
  cl::desc Help(D.help);
  cl::OptionHidden Hidden = D.hidden ? cl::Hidden : cl::NotHidden;
  cl::cat Category(PolyrustCategory);
  switch (D.kind) {
  case PR_OPTION_FLAG:
    return integerOption<bool>(Name, Help, cl::init(D.default_integer != 0), Hidden, Category);
  case PR_OPTION_UINT64:
    return integerOption<uint64_t>(Name, Help, cl::init(D.default_integer), Hidden, Category);
  case PR_OPTION_UINT:
    return integerOption<unsigned>(Name, Help, cl::init(unsigned(D.default_integer)), Hidden, Category);
  case PR_OPTION_CHOICE:
    return integerOption<ChoiceIndex>(Name, Help, DeclaredChoices{D}, cl::init(ChoiceIndex(D.default_integer)),
                                      Hidden, Category);
  case PR_OPTION_NUMBER: {
    auto *O = new cl::opt<double>(Name, Help, cl::init(D.default_number), Hidden, Category);
    return {std::unique_ptr<cl::Option>(O), [O](PrOptionValue &V) { V.number = *O; }};
  }
  case PR_OPTION_TEXT: {
    auto *O = new cl::opt<std::string>(Name, Help, cl::value_desc(D.value_name),
                                       D.value_optional ? cl::ValueOptional : cl::ValueRequired, Hidden,
                                       Category);
    if (*D.default_text)
      O->setInitialValue(D.default_text);
    return {std::unique_ptr<cl::Option>(O), [O](PrOptionValue &V) { V.text = O->c_str(); }};
  }
  case PR_OPTION_UINT_LIST: {
    auto *O = new cl::list<unsigned>(Name, Help, cl::CommaSeparated, Hidden, Category);
    return {std::unique_ptr<cl::Option>(O), [O](PrOptionValue &V) {
              V.list = O->empty() ? nullptr : &O->front();
              V.list_len = O->size();
            }};
  }
  }
  return {};
}

// Made when the plugin is loaded, before LLVM parses the rest of the command line.
std::vector<DeclaredOption> declareOptions() {
  std::vector<DeclaredOption> Out;
  PrOptionDeclaration D;
  for (size_t I = 0; polyrust_option_declaration(I, &D); ++I)
    Out.push_back(makeOption(D));
  return Out;
}
const std::vector<DeclaredOption> Options = declareOptions();

// The options' values as LLVM parsed them, in the order of their declarations.
std::vector<PrOptionValue> optionValues() {
  std::vector<PrOptionValue> Values;
  for (const DeclaredOption &D : Options) {
    PrOptionValue V{};
    V.given = D.Opt->getNumOccurrences() > 0;
    V.text = "";
    D.Read(V);
    Values.push_back(V);
  }
  return Values;
}

// Hands a function to Rust, which runs the rounds of the pass on it; SCEV gives up on
// optnone code, so such functions are never handed over.
bool runOnFunction(Function &F, FunctionAnalysisManager &FAM) {
  if (F.isDeclaration() || F.hasOptNone())
    return false;
  PrFunctionRun Run{F, FAM};
  std::vector<PrOptionValue> Values = optionValues();
  return polyrust_optimize_function(&PolyrustHostApi, &Run, wrap(&F), Values.data(), Values.size()) != 0;
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
    PrFunctionRun Run{F, FAM};
    std::vector<PrOptionValue> Values = optionValues();
    if (char *Text = polyrust_print_function(&PolyrustHostApi, &Run, wrap(&F), Values.data(), Values.size(), Which)) {
      errs() << Text;
      polyrust_free_string(Text);
    }
    return PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

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
        int Printer = polyrust_printer_named(Name.data(), Name.size());
        if (Printer < 0)
          return false;
        FPM.addPass(PolyrustPrinterPass(static_cast<PrPrinter>(Printer)));
        return true;
      });
  PB->registerVectorizerStartEPCallback([](FunctionPassManager &FPM, OptimizationLevel Level) {
    std::vector<PrOptionValue> Values = optionValues();
    if (polyrust_joins_pipeline(Values.data(), Values.size(), Level.getSpeedupLevel(), Level.getSizeLevel()))
      FPM.addPass(PolyrustFunctionPass());
  });
}
