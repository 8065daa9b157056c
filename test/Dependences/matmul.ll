; print<polyrust-deps>: value-based flow, anti and output dependences of a region, and
; which loops carry them. In C[i][j] += A[i][k] * B[k][j] only the k loop carries a
; dependence (on C); i and j are parallel.
; RUN: %opt %loadpolyrust -passes='print<polyrust-deps>' -disable-output %s 2>&1 | %FileCheck %s

define void @matmul(ptr noalias %C, ptr noalias %A, ptr noalias %B) {
entry:
  br label %i.loop
i.loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %i.latch ]
  br label %j.loop
j.loop:
  %j = phi i64 [ 0, %i.loop ], [ %j.next, %j.latch ]
  br label %k.loop
k.loop:
  %k = phi i64 [ 0, %j.loop ], [ %k.next, %k.loop ]
  %pa = getelementptr inbounds [64 x double], ptr %A, i64 %i, i64 %k
  %a = load double, ptr %pa
  %pb = getelementptr inbounds [64 x double], ptr %B, i64 %k, i64 %j
  %b = load double, ptr %pb
  %pc = getelementptr inbounds [64 x double], ptr %C, i64 %i, i64 %j
  %c = load double, ptr %pc
  %p = fmul double %a, %b
  %s = fadd double %c, %p
  store double %s, ptr %pc
  %k.next = add nuw nsw i64 %k, 1
  %ck = icmp ult i64 %k.next, 64
  br i1 %ck, label %k.loop, label %j.latch
j.latch:
  %j.next = add nuw nsw i64 %j, 1
  %cj = icmp ult i64 %j.next, 64
  br i1 %cj, label %j.loop, label %i.latch
i.latch:
  %i.next = add nuw nsw i64 %i, 1
  %ci = icmp ult i64 %i.next, 64
  br i1 %ci, label %i.loop, label %exit
exit:
  ret void
}
; CHECK-LABEL: polyrust-deps: function 'matmul'
; CHECK: Dependences of matmul:
; CHECK: Flow:
; CHECK: S0[i0, i1, i2] -> S0[i0' = i0, i1' = i1, i2' = 1 + i2]
; CHECK: Loops carrying dependences:
; CHECK: S0: level 1 (i0) parallel
; CHECK: level 2 (i1) parallel
; CHECK: level 3 (i2) carried
