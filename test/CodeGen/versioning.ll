; Code generation keeps the original region behind a run-time check: the check block
; tests the model's assumptions and that the arrays of an alias group do not overlap,
; then branches to the generated loops or to the original code; the result verifies.
; RUN: %opt %loadpolyrust -passes='polyrust,verify' -polyrust-force-codegen -S %s | %FileCheck %s

; for (i = 0; i < n; i++) for (j = 0; j < m; j++) B[i*m+j] = 2 * A[i*m+j];  (A, B may alias)
define void @scale(ptr %A, ptr %B, i64 %n, i64 %m) {
entry:
  %gn = icmp sgt i64 %n, 0
  %gm = icmp sgt i64 %m, 0
  %g = and i1 %gn, %gm
  br i1 %g, label %outer, label %exit
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %outer.latch ]
  %row = mul nsw i64 %i, %m
  br label %inner
inner:
  %j = phi i64 [ 0, %outer ], [ %j.next, %inner ]
  %idx = add nsw i64 %row, %j
  %pa = getelementptr inbounds double, ptr %A, i64 %idx
  %v = load double, ptr %pa
  %w = fmul double %v, 2.0
  %pb = getelementptr inbounds double, ptr %B, i64 %idx
  store double %w, ptr %pb
  %j.next = add nuw nsw i64 %j, 1
  %cj = icmp slt i64 %j.next, %m
  br i1 %cj, label %inner, label %outer.latch
outer.latch:
  %i.next = add nuw nsw i64 %i, 1
  %ci = icmp slt i64 %i.next, %n
  br i1 %ci, label %outer, label %exit
exit:
  ret void
}
; CHECK-LABEL: define void @scale(
; The region is entered through the check (in front of the loop's preheader, which
; polyrust gives every loop first, as LLVM's loop-simplify does).
; CHECK: br i1 %g, label %outer.preheader, label %exit
; CHECK: outer.preheader:
; CHECK-NEXT: br label %polyrust.check
; The original loops are still there.
; CHECK: outer:
; CHECK: inner:
; The check compares the address ranges of A and B, then chooses.
; CHECK: polyrust.check:
; CHECK: ptrtoint ptr %{{[AB]}} to i64
; CHECK: ptrtoint ptr %{{[AB]}} to i64
; CHECK: br i1 %{{[0-9]+}}, label %polyrust.start, label %outer{{.*}}
; The generated loop nest (rotated after the rewrite, for LICM): a load of A and a
; store to B per instance.
; CHECK: polyrust.body:
; CHECK: %c0{{[0-9]*}} = phi i64
; CHECK: polyrust.body{{[0-9]+}}:
; CHECK: %c1{{[0-9]*}} = phi i64
; CHECK: load double, ptr
; CHECK: fmul double
; CHECK: store double
