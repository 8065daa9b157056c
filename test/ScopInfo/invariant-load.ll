; A loop bound loaded inside the region, from an address no write of the region may
; alias, is a parameter: the model records why it may be loaded once.
; RUN: %opt %loadpolyrust -passes='print<polyrust-scops>' -disable-output %s 2>&1 | %FileCheck %s

; for (i = 0; i < 64; i++) { int m = *len; for (j = 0; j < m; j++) out[j] += 1.0; }
define void @invariant_bound(ptr noalias %len, ptr noalias %out) {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %outer.latch ]
  %m = load i64, ptr %len
  %has = icmp sgt i64 %m, 0
  br i1 %has, label %inner, label %outer.latch
inner:
  %j = phi i64 [ 0, %outer ], [ %j.next, %inner ]
  %p = getelementptr inbounds double, ptr %out, i64 %j
  %v = load double, ptr %p
  %w = fadd double %v, 1.0
  store double %w, ptr %p
  %j.next = add nuw nsw i64 %j, 1
  %cj = icmp slt i64 %j.next, %m
  br i1 %cj, label %inner, label %outer.latch
outer.latch:
  %i.next = add nuw nsw i64 %i, 1
  %ci = icmp slt i64 %i.next, 64
  br i1 %ci, label %outer, label %exit
exit:
  ret void
}
; CHECK-LABEL: polyrust-scops: function 'invariant_bound'
; CHECK: Parameters: [m]
; CHECK: invariant-load: [m] -> {  :  } (%m is loaded once: no write of the region may alias it)
; CHECK-NOT: m__s
; CHECK: Domain: [m] -> { S{{[0-9]}}[i0, i1] : m > 0 and 0 <= i0 <= 63 and 0 <= i1 < m }
