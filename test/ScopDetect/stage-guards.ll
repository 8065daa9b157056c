; Consecutive stages over interior-only loops are one region. LLVM jump-threads each
; stage's zero-trip guard (`for (i = 1; i < n - 1; i++)` runs when n > 2) straight to
; the block after the last stage: the first stages alone have no single exit, only the
; run up to that block has. Detection looks past such shape-only failures, and the
; guards become part of the domains (S1 runs only when n > 100 below, which its bounds
; alone would not say). LLVM 22 writes the signed guards as `icmp samesign ugt`, which
; is poison when the signs differ, so a branch on it in a defined run compares like a
; signed one. A plain unsigned comparison of values that may be negative still rejects.
; RUN: %opt %loadpolyrust -passes='print<polyrust-detect>' -disable-output %s 2>&1 | %FileCheck %s
; RUN: %opt %loadpolyrust -passes='print<polyrust-scops>' -disable-output %s 2>&1 \
; RUN:   | %FileCheck %s --check-prefix=SCOP
; RUN: %opt %loadpolyrust -passes=polyrust -polyrust-force-codegen -S %s -o %t.ll
; RUN: %opt -passes=verify -disable-output %t.ll

; CHECK-LABEL: polyrust-detect: function 'three_stages'
; CHECK-NEXT: region three_stages:s1.body: 3 loop nests, 3 loops, depth 1, 3 statements
; CHECK-NOT: region
; CHECK-NOT: rejected
; SCOP-LABEL: Scop three_stages:s1.body
; SCOP: S0 (%s1.body)
; SCOP-NEXT: Domain: [n] -> { S0[i0] : 0 <= i0 <= -3 + n }
; SCOP: S1 (%s2.body)
; SCOP-NEXT: Domain: [n] -> { S1[i0] : n >= 101 and 0 <= i0 <= -5 + n }
; SCOP: S2 (%s3.body)
; SCOP-NEXT: Domain: [n] -> { S2[i0] : n >= 101 and 0 <= i0 <= -7 + n }
define void @three_stages(i32 %n, ptr noalias %in, ptr noalias %t1, ptr noalias %t2, ptr noalias %out) {
entry:
  %g1 = icmp sgt i32 %n, 2
  br i1 %g1, label %s1.pre, label %end

s1.pre:
  %e1.n = add nsw i32 %n, -1
  %e1 = zext nneg i32 %e1.n to i64
  br label %s1.body

s1.body:
  %i = phi i64 [ 1, %s1.pre ], [ %i.next, %s1.body ]
  %i.m = add nsw i64 %i, -1
  %pa = getelementptr double, ptr %in, i64 %i.m
  %a = load double, ptr %pa
  %i.next = add nuw nsw i64 %i, 1
  %pb = getelementptr double, ptr %in, i64 %i.next
  %b = load double, ptr %pb
  %s = fadd double %a, %b
  %pt1 = getelementptr double, ptr %t1, i64 %i
  store double %s, ptr %pt1
  %c1 = icmp eq i64 %i.next, %e1
  br i1 %c1, label %g2.block, label %s1.body

g2.block:
  %g2 = icmp samesign ugt i32 %n, 100
  br i1 %g2, label %s2.pre, label %end

s2.pre:
  %e2.n = add nsw i32 %n, -2
  %e2 = zext nneg i32 %e2.n to i64
  br label %s2.body

s2.body:
  %j = phi i64 [ 2, %s2.pre ], [ %j.next, %s2.body ]
  %j.m = add nsw i64 %j, -1
  %pc = getelementptr double, ptr %t1, i64 %j.m
  %c = load double, ptr %pc
  %j.next = add nuw nsw i64 %j, 1
  %pd = getelementptr double, ptr %t1, i64 %j.next
  %d = load double, ptr %pd
  %u = fsub double %d, %c
  %pt2 = getelementptr double, ptr %t2, i64 %j
  store double %u, ptr %pt2
  %c2 = icmp eq i64 %j.next, %e2
  br i1 %c2, label %g3.block, label %s2.body

g3.block:
  %g3 = icmp samesign ugt i32 %n, 6
  br i1 %g3, label %s3.pre, label %end

s3.pre:
  %e3.n = add nsw i32 %n, -3
  %e3 = zext nneg i32 %e3.n to i64
  br label %s3.body

s3.body:
  %k = phi i64 [ 3, %s3.pre ], [ %k.next, %s3.body ]
  %pe = getelementptr double, ptr %t2, i64 %k
  %e = load double, ptr %pe
  %v = fmul double %e, 2.0
  %po = getelementptr double, ptr %out, i64 %k
  store double %v, ptr %po
  %k.next = add nuw nsw i64 %k, 1
  %c3 = icmp eq i64 %k.next, %e3
  br i1 %c3, label %end, label %s3.body

end:
  ret void
}

; Without samesign, `n >u 4` is not `n > 4` for negative n: the two stages are not one
; region (the guard is not affine), each stage alone is.
; CHECK-LABEL: polyrust-detect: function 'unsigned_guard'
; CHECK-NEXT: region unsigned_guard:s1.body: 1 loop nest, 1 loop, depth 1, 1 statement
; CHECK-NEXT: region unsigned_guard:s2.body: 1 loop nest, 1 loop, depth 1, 1 statement
define void @unsigned_guard(i32 %n, ptr noalias %in, ptr noalias %t1, ptr noalias %out) {
entry:
  %g1 = icmp sgt i32 %n, 2
  br i1 %g1, label %s1.pre, label %end

s1.pre:
  %e1.n = add nsw i32 %n, -1
  %e1 = zext nneg i32 %e1.n to i64
  br label %s1.body

s1.body:
  %i = phi i64 [ 1, %s1.pre ], [ %i.next, %s1.body ]
  %pa = getelementptr double, ptr %in, i64 %i
  %a = load double, ptr %pa
  %pt1 = getelementptr double, ptr %t1, i64 %i
  store double %a, ptr %pt1
  %i.next = add nuw nsw i64 %i, 1
  %c1 = icmp eq i64 %i.next, %e1
  br i1 %c1, label %g2.block, label %s1.body

g2.block:
  %g2 = icmp ugt i32 %n, 4
  br i1 %g2, label %s2.pre, label %end

s2.pre:
  %e2.n = add nsw i32 %n, -2
  %e2 = zext nneg i32 %e2.n to i64
  br label %s2.body

s2.body:
  %j = phi i64 [ 2, %s2.pre ], [ %j.next, %s2.body ]
  %pc = getelementptr double, ptr %t1, i64 %j
  %c = load double, ptr %pc
  %po = getelementptr double, ptr %out, i64 %j
  store double %c, ptr %po
  %j.next = add nuw nsw i64 %j, 1
  %c2 = icmp eq i64 %j.next, %e2
  br i1 %c2, label %end, label %s2.body

end:
  ret void
}
