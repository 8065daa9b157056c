// What the registration (shim.cpp) and the host table (host.cpp) share: the handle of
// one run of a pass on a function, which Rust holds between rounds, and the table.
#ifndef POLYRUST_SHIM_HOST_H
#define POLYRUST_SHIM_HOST_H

#include "polyrust_host.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/PassManager.h"

struct PrFunctionRun {
  llvm::Function &F;
  llvm::FunctionAnalysisManager &FAM;
};

extern const PrHostApi PolyrustHostApi;

#endif
