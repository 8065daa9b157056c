; The stages of a pipeline may spell the row length differently: clang computes
; `sext i32 %w` once for one stage and `zext nneg i32 %w` in front of another (the
; unsharp-mask and Harris pipelines at -O3). ScalarEvolution drops the nneg, so LLVM's
; delinearization sees two unrelated sizes and gives up on the array as a whole; each
; stage on its own has the shape [*][w]. Both sizes are the parameter w, the zero
; extension under the assumption w >= 0 (checked at run time where the stage runs, here
; implied by its guard), so the two stages are one region with one shape per array.
; Stages whose sizes really differ (w and h) stay apart.
; RUN: %opt %loadpolyrust -passes='print<polyrust-detect>' -disable-output %s 2>&1 | %FileCheck %s
; RUN: %opt %loadpolyrust -passes='print<polyrust-scops>' -disable-output %s 2>&1 \
; RUN:   | %FileCheck %s --check-prefix=SCOP
; RUN: %opt %loadpolyrust -passes=polyrust -polyrust-force-codegen -S %s -o %t.ll
; RUN: %opt -passes=verify -disable-output %t.ll

; CHECK-LABEL: polyrust-detect: function 'sext_then_zext'
; CHECK-NEXT: region sext_then_zext:s1.guard: 2 loop nests, 4 loops, depth 2, 2 statements
; CHECK-NOT: region
; SCOP-LABEL: Scop sext_then_zext:s1.guard
; SCOP: Parameters: [h, w]
; SCOP: no-wrap: [h, w] -> { S1[i0, i1] : w >= 0 } (w does not wrap in i32 (zero extension))
; SCOP: Arrays:
; SCOP-NEXT: float in[*][w]
; SCOP-NEXT: float t[*][w]
; SCOP-NEXT: float out[*][w]
; SCOP: S0 (%s1.col)
; SCOP-NEXT: Domain: [h, w] -> { S0[i0, i1] : 0 <= i0 < h and 0 <= i1 <= -3 + w }
; SCOP: MustWrite: [h, w] -> { S0[i0, i1] -> t[i0, 1 + i1] }
; SCOP: S1 (%s2.col)
; SCOP-NEXT: Domain: [h, w] -> { S1[i0, i1] : 0 <= i0 <= -3 + h and 0 <= i1 <= -3 + w }
; SCOP: Read: [h, w] -> { S1[i0, i1] -> t[i0, 1 + i1] }
; SCOP-NEXT: Read: [h, w] -> { S1[i0, i1] -> t[2 + i0, 1 + i1] }
; SCOP-NEXT: MustWrite: [h, w] -> { S1[i0, i1] -> out[1 + i0, 1 + i1] }
define void @sext_then_zext(i32 %h, i32 %w, ptr noalias %in, ptr noalias %t, ptr noalias %out) {
entry:
  %ws = sext i32 %w to i64
  %g0 = icmp sgt i32 %h, 0
  br i1 %g0, label %s1.guard, label %end

s1.guard:
  %gw = icmp sgt i32 %w, 2
  br i1 %gw, label %s1.pre, label %s2.guard

s1.pre:
  %wz = zext nneg i32 %w to i64
  %hz = zext nneg i32 %h to i64
  %w1 = add nsw i32 %w, -1
  %w1z = zext i32 %w1 to i64
  br label %s1.row

s1.row:
  %y = phi i64 [ 0, %s1.pre ], [ %y.next, %s1.latch ]
  %row = mul nuw nsw i64 %y, %wz
  br label %s1.col

s1.col:
  %x = phi i64 [ 1, %s1.row ], [ %x.next, %s1.col ]
  %at = add nuw nsw i64 %x, %row
  %pin = getelementptr float, ptr %in, i64 %at
  %pl = getelementptr i8, ptr %pin, i64 -4
  %l = load float, ptr %pl
  %pr = getelementptr i8, ptr %pin, i64 4
  %r = load float, ptr %pr
  %s = fadd float %l, %r
  %pt = getelementptr inbounds nuw float, ptr %t, i64 %at
  store float %s, ptr %pt
  %x.next = add nuw nsw i64 %x, 1
  %cx = icmp eq i64 %x.next, %w1z
  br i1 %cx, label %s1.latch, label %s1.col

s1.latch:
  %y.next = add nuw nsw i64 %y, 1
  %cy = icmp eq i64 %y.next, %hz
  br i1 %cy, label %s2.guard, label %s1.row

s2.guard:
  %gh2 = icmp sgt i32 %h, 2
  %gw2 = icmp sgt i32 %w, 2
  %g2 = and i1 %gh2, %gw2
  br i1 %g2, label %s2.pre, label %end

s2.pre:
  %h1 = add nsw i32 %h, -1
  %w1b = add nsw i32 %w, -1
  %h1z = zext nneg i32 %h1 to i64
  %w1bz = zext i32 %w1b to i64
  br label %s2.row

s2.row:
  %v = phi i64 [ 1, %s2.pre ], [ %v.next, %s2.latch ]
  %v.up = add nsw i64 %v, -1
  %up = mul nsw i64 %v.up, %ws
  %v.next = add nuw nsw i64 %v, 1
  %down = mul nsw i64 %v.next, %ws
  %mid = mul nsw i64 %v, %ws
  %pup = getelementptr float, ptr %t, i64 %up
  %pdown = getelementptr float, ptr %t, i64 %down
  %pmid = getelementptr float, ptr %out, i64 %mid
  br label %s2.col

s2.col:
  %u = phi i64 [ 1, %s2.row ], [ %u.next, %s2.col ]
  %pa = getelementptr float, ptr %pup, i64 %u
  %a = load float, ptr %pa
  %pb = getelementptr float, ptr %pdown, i64 %u
  %b = load float, ptr %pb
  %sum = fadd float %a, %b
  %po = getelementptr float, ptr %pmid, i64 %u
  store float %sum, ptr %po
  %u.next = add nuw nsw i64 %u, 1
  %cu = icmp eq i64 %u.next, %w1bz
  br i1 %cu, label %s2.latch, label %s2.col

s2.latch:
  %cv = icmp eq i64 %v.next, %h1z
  br i1 %cv, label %end, label %s2.row

end:
  ret void
}

; CHECK-LABEL: polyrust-detect: function 'different_sizes'
; CHECK-NEXT: region different_sizes:s1.row: 1 loop nest, 2 loops, depth 2, 1 statement
; CHECK-NEXT: region different_sizes:s2.row: 1 loop nest, 2 loops, depth 2, 1 statement
define void @different_sizes(i32 %h, i32 %w, ptr noalias %in, ptr noalias %t, ptr noalias %out) {
entry:
  %hs = sext i32 %h to i64
  %g0 = icmp sgt i32 %h, 0
  br i1 %g0, label %s1.guard, label %end

s1.guard:
  %gw = icmp sgt i32 %w, 2
  br i1 %gw, label %s1.pre, label %s2.guard

s1.pre:
  %wz = zext nneg i32 %w to i64
  %hz = zext nneg i32 %h to i64
  %w1 = add nsw i32 %w, -1
  %w1z = zext i32 %w1 to i64
  br label %s1.row

s1.row:
  %y = phi i64 [ 0, %s1.pre ], [ %y.next, %s1.latch ]
  %row = mul nuw nsw i64 %y, %wz
  br label %s1.col

s1.col:
  %x = phi i64 [ 1, %s1.row ], [ %x.next, %s1.col ]
  %at = add nuw nsw i64 %x, %row
  %pin = getelementptr float, ptr %in, i64 %at
  %l = load float, ptr %pin
  %pt = getelementptr inbounds nuw float, ptr %t, i64 %at
  store float %l, ptr %pt
  %x.next = add nuw nsw i64 %x, 1
  %cx = icmp eq i64 %x.next, %w1z
  br i1 %cx, label %s1.latch, label %s1.col

s1.latch:
  %y.next = add nuw nsw i64 %y, 1
  %cy = icmp eq i64 %y.next, %hz
  br i1 %cy, label %s2.guard, label %s1.row

s2.guard:
  %gh2 = icmp sgt i32 %h, 2
  %gw2 = icmp sgt i32 %w, 2
  %g2 = and i1 %gh2, %gw2
  br i1 %g2, label %s2.pre, label %end

s2.pre:
  %h1 = add nsw i32 %h, -1
  %w1b = add nsw i32 %w, -1
  %h1z = zext nneg i32 %h1 to i64
  %w1bz = zext i32 %w1b to i64
  br label %s2.row

s2.row:
  %v = phi i64 [ 1, %s2.pre ], [ %v.next, %s2.latch ]
  %mid = mul nsw i64 %v, %hs
  %pmid = getelementptr float, ptr %t, i64 %mid
  %pout = getelementptr float, ptr %out, i64 %mid
  %v.next = add nuw nsw i64 %v, 1
  br label %s2.col

s2.col:
  %u = phi i64 [ 1, %s2.row ], [ %u.next, %s2.col ]
  %pa = getelementptr float, ptr %pmid, i64 %u
  %a = load float, ptr %pa
  %po = getelementptr float, ptr %pout, i64 %u
  store float %a, ptr %po
  %u.next = add nuw nsw i64 %u, 1
  %cu = icmp eq i64 %u.next, %w1bz
  br i1 %cu, label %s2.latch, label %s2.col

s2.latch:
  %cv = icmp eq i64 %v.next, %h1z
  br i1 %cv, label %end, label %s2.row

end:
  ret void
}
