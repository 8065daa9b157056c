; print<polyrust-deps>: value-based flow, anti and output dependences of a region, and
; which loops carry them. In C[i][j] += A[i][k] * B[k][j] only the k loop carries a
; dependence (on C); i and j are parallel. Detection marks the update of C as a
; reduction: kept by default (bit-exact), relaxed with -polyrust-allow-reassociation.
; RUN: %opt %loadpolyrust -passes='print<polyrust-deps>' -disable-output %s 2>&1 | %FileCheck %s
; RUN: %opt %loadpolyrust -passes='print<polyrust-deps>' -polyrust-allow-reassociation \
; RUN:   -disable-output %s 2>&1 | %FileCheck %s --check-prefix=RELAXED

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
; CHECK: Reductions:
; CHECK-NEXT: S0 on C, kept (reassociation not allowed):
; CHECK: Loops carrying dependences:
; CHECK: S0: level 1 (i0) parallel
; CHECK: level 2 (i1) parallel
; CHECK: level 3 (i2) carried (reduction)
; RELAXED-LABEL: polyrust-deps: function 'matmul'
; RELAXED: S0 on C, relaxed (reassociation allowed):
; RELAXED: level 3 (i2) parallel with reduction

; s = 0; for (i = 0; i < 100; i++) s += A[i]; return s;  (a reduction on a scalar: the
; phi carrying s is read and written by the loop body only)
define double @sum(ptr noalias %A) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %p = getelementptr inbounds double, ptr %A, i64 %i
  %v = load double, ptr %p
  %s.next = fadd double %s, %v
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp ult i64 %i.next, 100
  br i1 %c, label %loop, label %exit
exit:
  %r = phi double [ %s.next, %loop ]
  ret double %r
}
; CHECK-LABEL: polyrust-deps: function 'sum'
; CHECK: Reductions:
; CHECK-NEXT: S0 on s__phi, kept (reassociation not allowed):
; RELAXED-LABEL: polyrust-deps: function 'sum'
; RELAXED: S0 on s__phi, relaxed (reassociation allowed):
