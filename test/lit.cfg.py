# The lit suite of polyrust. Tests reach the tools through substitutions only, so the
# LLVM 22 tools are used even where /usr/bin/opt is an older LLVM:
#   %opt %clang %clangxx %FileCheck %not   the LLVM 22 tools
#   %plugin                          target/release/libpolyrust.so
#   %loadpolyrust                    -load-pass-plugin=<plugin> (for opt)
#   %polyrust-cc                     scripts/polyrust-cc
#   %rtlib                           the runtime to link instrumented programs with
#   %polyrust-prof                   the profile tool
#   %repo                            the repository root
import os
import shutil

import lit.formats

config.name = "polyrust"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".ll", ".c", ".cpp", ".test"]
config.excludes = ["Inputs", "kernels", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.test_source_root, "..", "target", "lit")

repo = os.path.abspath(os.path.join(config.test_source_root, ".."))
llvm_bin = os.environ.get("POLYRUST_LLVM_BIN", "/usr/lib/llvm-22/bin")
plugin = os.environ.get(
    "POLYRUST_PLUGIN", os.path.join(repo, "target", "release", "libpolyrust.so")
)

if not os.path.exists(plugin):
    lit_config.fatal(f"plugin {plugin} not built: run scripts/setup first")
for tool in ["opt", "clang", "FileCheck", "not", "llvm-as"]:
    if not os.path.exists(os.path.join(llvm_bin, tool)):
        lit_config.fatal(f"{tool} missing from {llvm_bin}: run scripts/setup first")

# For lit.local.cfg files that build their own substitutions.
config.polyrust_plugin = plugin
config.polyrust_clang = os.path.join(llvm_bin, "clang")
config.substitutions.append(("%loadpolyrust", f"-load-pass-plugin={plugin}"))
config.substitutions.append(("%plugin", plugin))
config.substitutions.append(("%opt", os.path.join(llvm_bin, "opt")))
# %clangxx before %clang, whose text it starts with.
config.substitutions.append(("%clangxx", os.path.join(llvm_bin, "clang++")))
config.substitutions.append(("%clang", os.path.join(llvm_bin, "clang")))
config.substitutions.append(("%FileCheck", os.path.join(llvm_bin, "FileCheck")))
config.substitutions.append(("%not", os.path.join(llvm_bin, "not")))
config.substitutions.append(("%llvm-nm", os.path.join(llvm_bin, "llvm-nm")))
config.substitutions.append(("%polyrust-cc", os.path.join(repo, "scripts", "polyrust-cc")))
release = os.path.dirname(plugin)
config.substitutions.append(
    ("%rtlib", f"{os.path.join(release, 'libpolyrust_rt.a')} -lpthread -ldl -lm")
)
config.substitutions.append(("%polyrust-prof", os.path.join(release, "polyrust-prof")))
config.substitutions.append(("%repo", repo))
config.substitutions.append(("%llvmbin", llvm_bin))

# Only the LLVM 22 tools may be found by name inside tests.
config.environment["PATH"] = os.pathsep.join([llvm_bin, os.environ.get("PATH", "")])
for var in ["HOME", "TMPDIR", "POLYRUST_PLUGIN"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]
# Long campaigns run only on request, with POLYRUST_LONG_TESTS=1 (scripts/test --long)
# or `lit --param long=1`: tests that are nothing but a campaign are `REQUIRES: long`
# (Robustness/fuzz-campaign.test, fuzz-stencils-campaign.test), others take a longer sweep under
# `%if long %{...%} %else %{...%}` (the llvm-stress seeds of Robustness/no-crash*.test).
if os.environ.get("POLYRUST_LONG_TESTS") == "1" or lit_config.params.get("long") == "1":
    config.available_features.add("long")
if shutil.which("cmake"):
    config.available_features.add("cmake")
# The compiler caches and the distributed compiler of Driver/cache-*.test and
# Driver/distcc.test (scripts/setup installs them; polyrust itself needs none).
for feature, tools in [
    ("ccache", ["ccache"]),
    ("sccache", ["sccache"]),
    ("distcc", ["distcc", "distccd"]),
]:
    if all(shutil.which(tool) for tool in tools):
        config.available_features.add(feature)
# LLVM's opt-viewer (llvm-22-tools) and the Python modules it imports.
opt_viewer = os.path.join(llvm_bin, "..", "share", "opt-viewer", "opt-viewer.py")
if os.path.exists(opt_viewer):
    import importlib.util

    if all(importlib.util.find_spec(m) for m in ("yaml", "pygments")):
        config.available_features.add("opt-viewer")
# LLVM's OpenMP runtime (libomp-22-dev), which clang -fopenmp links the parallel code
# polyrust makes with (test/Parallel, EndToEnd/corpus-parallel.test).
if os.path.exists(os.path.join(llvm_bin, "..", "lib", "libomp.so")):
    config.available_features.add("libomp")
