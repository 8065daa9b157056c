; Values the region makes and code after it uses: the new code provides each of them
; after its loops, and the code after the region takes it from a phi of the exit
; block that merges the original region's value with the new code's. Before, such
; regions were detected and then left unchanged ("%s.lcssa is computed in the region
; and used after it, which code generation does not handle yet").
; - %s.lcssa (a sum finished before the second loop) is used by a non-phi instruction
;   after the region: a scalar of the model, read back from its stack slot;
; - %j.last (the second loop's last counter) reaches the exit's phi: recomputed from %n;
; RUN: %opt %loadpolyrust -passes='polyrust-function,verify' -polyrust-force-codegen \
; RUN:   -pass-remarks=polyrust -pass-remarks-missed=polyrust -S %s -o %t.ll 2>&1 \
; RUN:   | %FileCheck %s --check-prefix=REMARK
; RUN: %FileCheck %s < %t.ll
; RUN: %opt %loadpolyrust -passes='polyrust-function' -pass-remarks-missed=polyrust \
; RUN:   -disable-output %s 2>&1 | %FileCheck %s --check-prefix=MISSED --allow-empty

; REMARK: region in sum_then_double at block %loop1 optimized (original schedule (forced))
; REMARK: region in last_or_zero at block %entry optimized (original schedule (forced))
; REMARK-NOT: left unchanged
; MISSED-NOT: used after
; MISSED-NOT: depending on the path out

; double s = 0; for (i < n) s += A[i]; for (j < n) B[j] = 2 * A[j];  (A and B may overlap)
; return 3 * s + j;   (n > 0)
define double @sum_then_double(i64 %n, ptr %A, ptr %B) {
entry:
  %guard = icmp sgt i64 %n, 0
  br i1 %guard, label %loop1, label %end
loop1:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop1 ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop1 ]
  %pa = getelementptr inbounds double, ptr %A, i64 %i
  %a = load double, ptr %pa
  %s.next = fadd double %s, %a
  %i.next = add nuw nsw i64 %i, 1
  %c1 = icmp slt i64 %i.next, %n
  br i1 %c1, label %loop1, label %mid
mid:
  %s.lcssa = phi double [ %s.next, %loop1 ]
  br label %loop2
loop2:
  %j = phi i64 [ 0, %mid ], [ %j.next, %loop2 ]
  %pa2 = getelementptr inbounds double, ptr %A, i64 %j
  %a2 = load double, ptr %pa2
  %m = fmul double %a2, 2.0
  %pb = getelementptr inbounds double, ptr %B, i64 %j
  store double %m, ptr %pb
  %j.next = add nuw nsw i64 %j, 1
  %c2 = icmp slt i64 %j.next, %n
  br i1 %c2, label %loop2, label %after
after:
  %j.last = phi i64 [ %j.next, %loop2 ]
  %scaled = fmul double %s.lcssa, 3.0
  %jf = sitofp i64 %j.last to double
  %r = fadd double %scaled, %jf
  br label %end
end:
  %res = phi double [ %r, %after ], [ 0.0, %entry ]
  ret double %res
}

; CHECK-LABEL: define double @sum_then_double(
; After the region, the sum comes from the original loop or from the new code's copy
; of it (its stack slot, promoted), and the counter's last value from %n.
; CHECK: after:
; (LoopRotate and LICM, run after the rewrite, put the original's values in LCSSA phis
; of a new exit block.)
; CHECK-NEXT: %polyrust.live = phi double [ %polyrust.s_lcssa__phi{{.*}}, %polyrust.exit{{[0-9]*}} ], [ %s.next{{(.lcssa)?}}, %{{loop2|after.loopexit}} ]
; CHECK-NEXT: %j.last = phi i64 [ %n, %polyrust.exit{{[0-9]*}} ], [ %j.next{{(.lcssa)?}}, %{{loop2|after.loopexit}} ]
; CHECK-NEXT: %scaled = fmul double %polyrust.live, 3.0
; CHECK: polyrust.check:
; CHECK: br i1 %{{[0-9]+}}, label %polyrust.start, label %loop1

; A value after the region that depends on the path out of it: the second loop's last
; value, or 0 when its guard (inside the region, which begins at the first loop's
; guard) skips it. Each path out writes the exit's phi as a scalar of the model; the
; new code hands its slot's value to the phi.
;   if (n > 0) for (i < n) B[i] = 2 * A[i];
;   last = 0; if (m > 0) for (j < m) { last = B[j] + 1; A[j] = last; }   return last;
define double @last_or_zero(i64 %n, i64 %m, ptr %A, ptr %B) {
entry:
  %g1 = icmp sgt i64 %n, 0
  br i1 %g1, label %loop1, label %guard2
loop1:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop1 ]
  %pa = getelementptr inbounds double, ptr %A, i64 %i
  %a = load double, ptr %pa
  %x = fmul double %a, 2.0
  %pb = getelementptr inbounds double, ptr %B, i64 %i
  store double %x, ptr %pb
  %i.next = add nuw nsw i64 %i, 1
  %c1 = icmp slt i64 %i.next, %n
  br i1 %c1, label %loop1, label %guard2
guard2:
  %g2 = icmp sgt i64 %m, 0
  br i1 %g2, label %loop2, label %done
loop2:
  %j = phi i64 [ 0, %guard2 ], [ %j.next, %loop2 ]
  %qb = getelementptr inbounds double, ptr %B, i64 %j
  %b = load double, ptr %qb
  %y = fadd double %b, 1.0
  %qa = getelementptr inbounds double, ptr %A, i64 %j
  store double %y, ptr %qa
  %j.next = add nuw nsw i64 %j, 1
  %c2 = icmp slt i64 %j.next, %m
  br i1 %c2, label %loop2, label %done
done:
  %last = phi double [ 0.0, %guard2 ], [ %y, %loop2 ]
  ret double %last
}

; CHECK-LABEL: define double @last_or_zero(
; CHECK: done:
; CHECK-NEXT: %last = phi double [ 0.000000e+00, %guard2 ], [ %y{{(.lcssa)?}}, %{{loop2|done.loopexit}} ], [ %polyrust.{{.*}}, %polyrust.
