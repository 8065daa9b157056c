; The Rust side reads LoopInfo and ScalarEvolution through the shim: for every loop it
; prints the depth and the SCEV counts, rendered by walking the SCEV tree in Rust. Each
; count must be exactly what LLVM's own print<scalar-evolution> says.
; RUN: %opt %loadpolyrust -passes='print<scalar-evolution>,print<polyrust-loops>' \
; RUN:   -disable-output %s 2>&1 | %FileCheck %s

; for (i = 0; i < n; i++) A[i] = 0;
define void @simple(ptr %A, i64 %n) {
entry:
  %guard = icmp sgt i64 %n, 0
  br i1 %guard, label %loop, label %exit
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %p = getelementptr inbounds double, ptr %A, i64 %i
  store double 0.0, ptr %p
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp slt i64 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}
; CHECK-LABEL: Determining loop execution counts for: @simple
; CHECK: Loop %loop: backedge-taken count is [[SIMPLE:.*]]
; CHECK: Loop %loop: constant max backedge-taken count is [[SIMPLE_MAX:.*]]
; CHECK-LABEL: polyrust loops of function 'simple':
; CHECK-NEXT: Loop %loop: depth 1
; CHECK-NEXT: Loop %loop: backedge-taken count is [[SIMPLE]]{{$}}
; CHECK-NEXT: Loop %loop: trip count is %n
; CHECK-NEXT: Loop %loop: constant max backedge-taken count is [[SIMPLE_MAX]]{{$}}

; for (i = 0; i < n; i++) for (j = 0; j < i; j++) A[i*n + j] += 1;
define void @triangular(ptr %A, i64 %n) {
entry:
  %guard = icmp sgt i64 %n, 0
  br i1 %guard, label %outer, label %exit
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %outer.latch ]
  %row = mul nsw i64 %i, %n
  %has.inner = icmp sgt i64 %i, 0
  br i1 %has.inner, label %inner, label %outer.latch
inner:
  %j = phi i64 [ 0, %outer ], [ %j.next, %inner ]
  %idx = add nsw i64 %row, %j
  %p = getelementptr inbounds double, ptr %A, i64 %idx
  %v = load double, ptr %p
  %w = fadd double %v, 1.0
  store double %w, ptr %p
  %j.next = add nuw nsw i64 %j, 1
  %cj = icmp slt i64 %j.next, %i
  br i1 %cj, label %inner, label %outer.latch
outer.latch:
  %i.next = add nuw nsw i64 %i, 1
  %ci = icmp slt i64 %i.next, %n
  br i1 %ci, label %outer, label %exit
exit:
  ret void
}
; CHECK-LABEL: Determining loop execution counts for: @triangular
; The inner count depends on the outer counter: it is an add recurrence of %outer.
; CHECK: Loop %inner: backedge-taken count is [[INNER:\{.*\}<.*%outer>.*]]
; CHECK: Loop %outer: backedge-taken count is [[OUTER:.*]]
; CHECK-LABEL: polyrust loops of function 'triangular':
; CHECK-NEXT: Loop %outer: depth 1
; CHECK-NEXT: Loop %outer: backedge-taken count is [[OUTER]]{{$}}
; CHECK:        Loop %inner: depth 2
; CHECK-NEXT:   Loop %inner: backedge-taken count is [[INNER]]{{$}}

; for (i = 0; i < n; i += 3) s += i;   (32-bit counter, so casts appear)
define i32 @stride3(i32 %n) {
entry:
  %guard = icmp sgt i32 %n, 0
  br i1 %guard, label %loop, label %exit
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi i32 [ 0, %entry ], [ %s.next, %loop ]
  %s.next = add i32 %s, %i
  %i.next = add nuw nsw i32 %i, 3
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  %r = phi i32 [ 0, %entry ], [ %s.next, %loop ]
  ret i32 %r
}
; CHECK-LABEL: Determining loop execution counts for: @stride3
; CHECK: Loop %loop: backedge-taken count is [[STRIDE:.*/u 3.*]]
; CHECK-LABEL: polyrust loops of function 'stride3':
; CHECK-NEXT: Loop %loop: depth 1
; CHECK-NEXT: Loop %loop: backedge-taken count is [[STRIDE]]{{$}}

; while (*p != 0) p++;   (exit depends on memory: no count)
define ptr @unpredictable(ptr %p) {
entry:
  br label %loop
loop:
  %q = phi ptr [ %p, %entry ], [ %q.next, %loop ]
  %v = load i8, ptr %q
  %q.next = getelementptr inbounds i8, ptr %q, i64 1
  %c = icmp ne i8 %v, 0
  br i1 %c, label %loop, label %exit
exit:
  ret ptr %q
}
; CHECK-LABEL: Determining loop execution counts for: @unpredictable
; CHECK: Loop %loop: Unpredictable backedge-taken count.
; CHECK-LABEL: polyrust loops of function 'unpredictable':
; CHECK-NEXT: Loop %loop: depth 1
; CHECK-NEXT: Loop %loop: Unpredictable backedge-taken count.
; CHECK-NEXT: Loop %loop: Unpredictable constant max backedge-taken count.

; for (i = 0; i < 100; i++) A[i] = i;
define void @constant(ptr %A) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %p = getelementptr inbounds i64, ptr %A, i64 %i
  store i64 %i, ptr %p
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp ult i64 %i.next, 100
  br i1 %c, label %loop, label %exit
exit:
  ret void
}
; CHECK-LABEL: polyrust loops of function 'constant':
; CHECK-NEXT: Loop %loop: depth 1
; CHECK-NEXT: Loop %loop: backedge-taken count is 99
; CHECK-NEXT: Loop %loop: trip count is 100
; CHECK-NEXT: Loop %loop: constant max backedge-taken count is i64 99

define void @noloops() {
  ret void
}
; CHECK-LABEL: polyrust loops of function 'noloops':
; CHECK-NEXT: no loops
