; Code generation that gives up after it has made blocks undoes them, and the blocks
; that stay lose the phi entries of those it made. Since loops are put in LCSSA form
; first, the exit has a phi (for %q) that generation had not yet given a value from its
; blocks when it stopped ("cannot recompute q"): undoing assumed an entry was there and
; crashed opt (llvm-stress seeds 886 and 1065 under -polyrust-force-codegen, reduced).
; Now the generated blocks are gone (the check block stays, a plain jump into the
; loop), the reason is given, and the function verifies.
; RUN: %opt %loadpolyrust -polyrust-codegen -polyrust-force-codegen -passes=polyrust,verify \
; RUN:   -pass-remarks-missed=polyrust -S %s -o - 2>&1 | %FileCheck %s
; CHECK: remark: <unknown>:0:0: region in f at block %loop left unchanged: cannot recompute q after the region
; CHECK-LABEL: define i32 @f(
; CHECK-NOT: polyrust.start
; CHECK-NOT: polyrust.loop
; CHECK: ret i32

define i32 @f(ptr %p, i32 %d) {
entry:
  br label %loop

loop:
  %v = load i32, ptr %p
  %q = sdiv i32 1, 0
  br i1 false, label %loop, label %exit

exit:
  ret i32 %q
}
