; Loops that earlier passes left out of simplified form (here the inner header is
; entered from two blocks, so it has no preheader, as SimplifyCFG and CHR can leave
; loops before the vectorizer): the pass puts them in simplified and LCSSA form first,
; as the vectorizer's pipeline does right after it, so detection models the whole
; nest. Before, such nests were split or missed (most nests of the reference BLAS's
; dgemm were never looked at).
; RUN: %opt %loadpolyrust -passes=polyrust,verify -pass-remarks-analysis=polyrust \
; RUN:   -pass-remarks-missed=polyrust -disable-output %s 2>&1 | %FileCheck %s
; A function without loops to simplify is left exactly as it was.
; RUN: %opt %loadpolyrust -passes=polyrust -S %s | %FileCheck %s --check-prefix=IR
;
; CHECK: remark: <unknown>:0:0: SCoP begins here.
; CHECK: remark: <unknown>:0:0: region in two_entries at block %outer left unchanged
; CHECK-NOT: loop not modelled
;
; IR: define void @two_entries(
; IR: inner.preheader:
; IR-LABEL: define i64 @no_loops(
; IR-NEXT: entry:
; IR-NEXT: %s = add i64 %a, 1
; IR-NEXT: ret i64 %s

define void @two_entries(ptr %A, i64 %n, i1 %flag) {
entry:
  %g = icmp sgt i64 %n, 0
  br i1 %g, label %outer, label %exit
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %outer.latch ]
  br i1 %flag, label %left, label %right
left:
  br label %inner
right:
  br label %inner
inner:
  %j = phi i64 [ 0, %left ], [ 0, %right ], [ %j.next, %inner ]
  %p = getelementptr inbounds [64 x double], ptr %A, i64 %i, i64 %j
  %v = load double, ptr %p
  %w = fadd double %v, 1.0
  store double %w, ptr %p
  %j.next = add nuw nsw i64 %j, 1
  %cj = icmp slt i64 %j.next, 64
  br i1 %cj, label %inner, label %outer.latch
outer.latch:
  %i.next = add nuw nsw i64 %i, 1
  %ci = icmp slt i64 %i.next, %n
  br i1 %ci, label %outer, label %exit
exit:
  ret void
}

define i64 @no_loops(i64 %a) {
entry:
  %s = add i64 %a, 1
  ret i64 %s
}
