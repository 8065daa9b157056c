; A region entered from several blocks (here the loop starts at 0 or 1 depending on a
; flag, and both paths branch straight to its header) has no block in front of it to
; put the run-time check in: code generation first routes those edges through a new
; block (polyrust.enter), whose phis take over the values the header's phis had from
; them, and generates the region in the next round. Before, such regions were left
; unchanged ("the region is entered from 3 blocks, which code generation does not
; handle yet"; NPB LU, lu.c:2113).
; RUN: %opt %loadpolyrust -passes='polyrust-function,verify' -polyrust-force-codegen \
; RUN:   -pass-remarks=polyrust -pass-remarks-missed=polyrust -S %s -o %t.ll 2>&1 \
; RUN:   | %FileCheck %s --check-prefix=REMARK
; RUN: %FileCheck %s < %t.ll

; REMARK: region in two_loops at block %guard1 optimized (original schedule (forced))
; REMARK-NOT: entered from

; if (flag) B[0] = 0; else A[0] = 0;
; if (n > 0) for (i = 0; i < n; i++) B[i] = 2 * A[i];
; for (j = 0; j < 64; j++) A[j] = B[j] + (flag ? 1 : 2);
; (A and B may overlap). The guard of the first loop skips into the region, to the
; second loop, so the region begins at the guard, which both branches of the if enter.
define void @two_loops(i64 %n, i1 %flag, ptr %A, ptr %B) {
entry:
  br i1 %flag, label %left, label %right
left:
  store double 0.0, ptr %B
  br label %guard1
right:
  store double 0.0, ptr %A
  br label %guard1
guard1:
  %step = phi double [ 1.0, %left ], [ 2.0, %right ]
  %g1 = icmp sgt i64 %n, 0
  br i1 %g1, label %loop1, label %loop2
loop1:
  %i = phi i64 [ 0, %guard1 ], [ %i.next, %loop1 ]
  %pa = getelementptr inbounds double, ptr %A, i64 %i
  %a = load double, ptr %pa
  %x = fmul double %a, 2.0
  %pb = getelementptr inbounds double, ptr %B, i64 %i
  store double %x, ptr %pb
  %i.next = add nuw nsw i64 %i, 1
  %c1 = icmp slt i64 %i.next, %n
  br i1 %c1, label %loop1, label %loop2
loop2:
  %j = phi i64 [ 0, %guard1 ], [ 0, %loop1 ], [ %j.next, %loop2 ]
  %qb = getelementptr inbounds double, ptr %B, i64 %j
  %b = load double, ptr %qb
  %y = fadd double %b, %step
  %qa = getelementptr inbounds double, ptr %A, i64 %j
  store double %y, ptr %qa
  %j.next = add nuw nsw i64 %j, 1
  %c2 = icmp slt i64 %j.next, 64
  br i1 %c2, label %loop2, label %exit
exit:
  ret void
}

; CHECK-LABEL: define void @two_loops(
; CHECK: left:
; CHECK: br label %polyrust.enter
; CHECK: right:
; CHECK: br label %polyrust.enter
; CHECK: polyrust.enter:
; CHECK-NEXT: %polyrust.routed = phi double [ 1.000000e+00, %left ], [ 2.000000e+00, %right ]
; CHECK-NEXT: br label %polyrust.check
; (%step, left with one incoming value, is folded into its uses)
; CHECK: loop2:
; CHECK: %y = fadd double %b, %polyrust.routed
; CHECK: polyrust.check:
; CHECK: br i1 %{{[0-9]+}}, label %polyrust.start, label %guard1
