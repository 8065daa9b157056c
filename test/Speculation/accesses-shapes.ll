; Sites of -polyrust-instrument=accesses in a nest with two loops side by side inside
; one (parents and depths in preorder), and of accesses that are not plain loads and
; stores: an atomic update is a load and a store of its address, a volatile store is a
; store, a memcpy of a constant length is a load of its source and a store of its
; destination of that many bytes; a volatile memcpy is not recorded, which a remark says.
;
; RUN: %opt %loadpolyrust -passes=polyrust -polyrust-profile-generate \
; RUN:   -polyrust-instrument=accesses -pass-remarks-analysis=polyrust -S %s -o %t.ll \
; RUN:   2> %t.remarks
; RUN: %FileCheck %s < %t.ll
; RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
; RUN: %opt -passes=verify -disable-output %t.ll

; tree: loop i (0, depth 1), loop j (1, in 0), loop j2 (2, in 0), loop k (3, in 2);
; then a[j] read and written (depth 2, in site 1), c[j2] read (depth 2, in site 2),
; b[k] read and written (depth 3, in site 3). No profile path: null. Detection models
; the nest: modelled = 1.
; CHECK-DAG: @[[TSITES:polyrust.sites[.0-9]*]] = private unnamed_addr constant [9 x { i32, i32, i32, i32, i32, i32, ptr }] [{ i32, i32, i32, i32, i32, i32, ptr } { i32 2, i32 1, i32 0, i32 0, i32 0, i32 -1, ptr @{{[a-z.0-9]+}} }, { i32, i32, i32, i32, i32, i32, ptr } { i32 2, i32 2, i32 0, i32 0, i32 0, i32 0, ptr @{{[a-z.0-9]+}} }, { i32, i32, i32, i32, i32, i32, ptr } { i32 2, i32 2, i32 0, i32 0, i32 0, i32 0, ptr @{{[a-z.0-9]+}} }, { i32, i32, i32, i32, i32, i32, ptr } { i32 2, i32 3, i32 0, i32 0, i32 0, i32 2, ptr @{{[a-z.0-9]+}} }, { i32, i32, i32, i32, i32, i32, ptr } { i32 0, i32 2, i32 8, i32 0, i32 0, i32 1, ptr @[[A:[a-z.0-9]+]] }, { i32, i32, i32, i32, i32, i32, ptr } { i32 1, i32 2, i32 8, i32 0, i32 0, i32 1, ptr @[[A]] }, { i32, i32, i32, i32, i32, i32, ptr } { i32 0, i32 2, i32 8, i32 0, i32 0, i32 2, ptr @[[C:[a-z.0-9]+]] }, { i32, i32, i32, i32, i32, i32, ptr } { i32 0, i32 3, i32 8, i32 0, i32 0, i32 3, ptr @[[B:[a-z.0-9]+]] }, { i32, i32, i32, i32, i32, i32, ptr } { i32 1, i32 3, i32 8, i32 0, i32 0, i32 3, ptr @[[B]] }]
; CHECK-DAG: @[[A]] = private unnamed_addr constant [2 x i8] c"a\00"
; CHECK-DAG: @[[B]] = private unnamed_addr constant [2 x i8] c"b\00"
; CHECK-DAG: @[[C]] = private unnamed_addr constant [2 x i8] c"c\00"
; CHECK-DAG: @{{polyrust.nest[.0-9]*}} = private unnamed_addr constant { i32, i32, i32, i32, ptr, ptr, ptr, ptr, ptr, ptr, i32, i32, ptr } { i32 2, i32 9, i32 3, i32 0, ptr @{{.*}}, ptr @{{.*}}, ptr @{{.*}}, ptr @{{.*}}, ptr @[[TSITES]], ptr null, i32 1, i32 2, ptr @[[TFACTS:polyrust.facts[.0-9]*]] }
; Its facts: a[j] and b[k] are updated through memory (loaded by sites 4 and 7, plus 1,
; stored by sites 5 and 8), in loops j (site 1) and k (site 3).
; CHECK-DAG: @[[TFACTS]] = private unnamed_addr constant [2 x { i32, i32, i32, i32, ptr, ptr }] [{ i32, i32, i32, i32, ptr, ptr } { i32 3, i32 1, i32 4, i32 5, ptr @[[PLUS:[a-z.0-9]+]], ptr @[[A]] }, { i32, i32, i32, i32, ptr, ptr } { i32 3, i32 3, i32 7, i32 8, ptr @[[PLUS]], ptr @[[B]] }]
; CHECK-DAG: @[[PLUS]] = private unnamed_addr constant [2 x i8] c"+\00"

; atomics: the loop; the atomic update as a load and a store of counter (4 bytes); the
; volatile store to flag; the memcpy of 8 bytes as a load of src and a store of dst.
; CHECK-DAG: @{{polyrust.sites[.0-9]*}} = private unnamed_addr constant [6 x { i32, i32, i32, i32, i32, i32, ptr }] [{ i32, i32, i32, i32, i32, i32, ptr } { i32 2, i32 1, i32 0, i32 0, i32 0, i32 -1, ptr @{{[a-z.0-9]+}} }, { i32, i32, i32, i32, i32, i32, ptr } { i32 0, i32 1, i32 4, i32 0, i32 0, i32 0, ptr @[[COUNTER:[a-z.0-9]+]] }, { i32, i32, i32, i32, i32, i32, ptr } { i32 1, i32 1, i32 4, i32 0, i32 0, i32 0, ptr @[[COUNTER]] }, { i32, i32, i32, i32, i32, i32, ptr } { i32 1, i32 1, i32 4, i32 0, i32 0, i32 0, ptr @{{[a-z.0-9]+}} }, { i32, i32, i32, i32, i32, i32, ptr } { i32 0, i32 1, i32 8, i32 0, i32 0, i32 0, ptr @[[SRC:[a-z.0-9]+]] }, { i32, i32, i32, i32, i32, i32, ptr } { i32 1, i32 1, i32 8, i32 0, i32 0, i32 0, ptr @[[DST:[a-z.0-9]+]] }]
; CHECK-DAG: @[[COUNTER]] = private unnamed_addr constant {{.*}} c"counter\00"
; CHECK-DAG: @[[SRC]] = private unnamed_addr constant {{.*}} c"src\00"
; CHECK-DAG: @[[DST]] = private unnamed_addr constant {{.*}} c"dst\00"
; The volatile copy is a call whose accesses are not recorded, in loop site 0.
; CHECK-DAG: @{{polyrust.facts[.0-9]*}} = private unnamed_addr constant [1 x { i32, i32, i32, i32, ptr, ptr }] [{ i32, i32, i32, i32, ptr, ptr } { i32 2, i32 0, i32 -1, i32 -1, ptr @{{[a-z.0-9]+}}, ptr @[[MEMCPY:[a-z.0-9]+]] }]
; CHECK-DAG: @[[MEMCPY]] = private unnamed_addr constant [7 x i8] c"memcpy\00"

; CHECK-LABEL: define void @atomics(
; CHECK:         %[[PC:[0-9]+]] = ptrtoint ptr %counter to i64
; CHECK:         call void @polyrust_rt_access(ptr nonnull @[[NEST:polyrust.nest[.0-9]*]], i32 1, ptr nonnull %[[IV:polyrust.iv[0-9]*]], i64 %[[PC]])
; CHECK-NEXT:    call void @polyrust_rt_access(ptr nonnull @[[NEST]], i32 2, ptr nonnull %[[IV]], i64 %[[PC]])
; CHECK-NEXT:    atomicrmw add ptr %counter, i32 1 monotonic
; CHECK:         call void @polyrust_rt_access(ptr nonnull @[[NEST]], i32 3,
; CHECK-NEXT:    store volatile i32
; CHECK:         call void @polyrust_rt_access(ptr nonnull @[[NEST]], i32 4, ptr nonnull %[[IV]], i64 %{{[0-9]+}})
; CHECK-NEXT:    %[[PD:[0-9]+]] = ptrtoint ptr %row to i64
; CHECK-NEXT:    call void @polyrust_rt_access(ptr nonnull @[[NEST]], i32 5, ptr nonnull %[[IV]], i64 %[[PD]])
; (The pass's clean-up after instrumenting turns the copy of 8 bytes into a load and a
; store; the volatile copy stays.)
; CHECK:         call void @llvm.memcpy.p0.p0.i64(ptr {{.*}}%flag, ptr {{.*}}%src, i64 4, i1 true)
; CHECK-NOT:     polyrust_rt_access
; CHECK:         br i1

; REMARK: remark: <unknown>:0:0: loop nest instrumented: its 4 loops and 5 memory accesses report their iteration vectors (nest tree:0:{{[0-9a-f]+}})
; REMARK: remark: <unknown>:0:0: loop nest instrumented: its 1 loop and 5 memory accesses report their iteration vectors (nest atomics:0:{{[0-9a-f]+}})
; REMARK: remark: <unknown>:0:0: accesses of the loop nest not recorded: call to llvm.memcpy.p0.p0.i64

define void @tree(i32 %n, ptr noalias %a, ptr noalias %b, ptr noalias %c) {
entry:
  %cmp44 = icmp sgt i32 %n, 0
  br i1 %cmp44, label %for.i.preheader, label %for.cond.cleanup

for.i.preheader:
  %wide.trip.count = zext nneg i32 %n to i64
  br label %for.i

for.i:
  %i = phi i32 [ %inc26, %for.i.latch ], [ 0, %for.i.preheader ]
  br label %for.j

for.cond.cleanup:
  ret void

for.j:
  %j = phi i64 [ 0, %for.i ], [ %j.next, %for.j ]
  %arrayidx = getelementptr inbounds nuw double, ptr %a, i64 %j
  %0 = load double, ptr %arrayidx, align 8
  %add = fadd double %0, 1.000000e+00
  store double %add, ptr %arrayidx, align 8
  %j.next = add nuw nsw i64 %j, 1
  %exitcond.not = icmp eq i64 %j.next, %wide.trip.count
  br i1 %exitcond.not, label %for.j2.preheader, label %for.j

for.j2.preheader:
  br label %for.j2

for.j2:
  %j2 = phi i64 [ %j2.next, %for.j2.latch ], [ 0, %for.j2.preheader ]
  %arrayidx15 = getelementptr inbounds nuw double, ptr %c, i64 %j2
  %1 = load double, ptr %arrayidx15, align 8
  br label %for.k

for.i.latch:
  %inc26 = add nuw nsw i32 %i, 1
  %exitcond57.not = icmp eq i32 %inc26, %n
  br i1 %exitcond57.not, label %for.cond.cleanup, label %for.i

for.j2.latch:
  %j2.next = add nuw nsw i64 %j2, 1
  %exitcond56.not = icmp eq i64 %j2.next, %wide.trip.count
  br i1 %exitcond56.not, label %for.i.latch, label %for.j2

for.k:
  %k = phi i64 [ 0, %for.j2 ], [ %k.next, %for.k ]
  %arrayidx17 = getelementptr inbounds nuw double, ptr %b, i64 %k
  %2 = load double, ptr %arrayidx17, align 8
  %add18 = fadd double %1, %2
  store double %add18, ptr %arrayidx17, align 8
  %k.next = add nuw nsw i64 %k, 1
  %exitcond51.not = icmp eq i64 %k.next, %wide.trip.count
  br i1 %exitcond51.not, label %for.j2.latch, label %for.k
}

define void @atomics(i32 %n, ptr %counter, ptr %flag, ptr %dst, ptr %src) {
entry:
  %cmp6 = icmp sgt i32 %n, 0
  br i1 %cmp6, label %for.body.preheader, label %for.cond.cleanup

for.body.preheader:
  %wide.trip.count = zext nneg i32 %n to i64
  br label %for.body

for.cond.cleanup:
  ret void

for.body:
  %iv = phi i64 [ 0, %for.body.preheader ], [ %iv.next, %for.body ]
  %old = atomicrmw add ptr %counter, i32 1 monotonic, align 4
  %i32 = trunc nuw nsw i64 %iv to i32
  store volatile i32 %i32, ptr %flag, align 4
  %off = shl nsw i64 %iv, 3
  %row = getelementptr inbounds nuw i8, ptr %dst, i64 %off
  call void @llvm.memcpy.p0.p0.i64(ptr %row, ptr %src, i64 8, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr %flag, ptr %src, i64 4, i1 true)
  %iv.next = add nuw nsw i64 %iv, 1
  %exitcond.not = icmp eq i64 %iv.next, %wide.trip.count
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body
}

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
