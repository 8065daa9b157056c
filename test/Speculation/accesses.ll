; -polyrust-instrument=accesses gives every outermost loop nest, whether detection
; accepts it (copy2d) or not (find, down), a counter per loop (0 from the preheader, +1
; on the latch), an iteration vector on the stack that each header stores its counter
; into, a call to polyrust_rt_nest_begin in front of the nest that picks the nest or
; its plain copy (no calls; polyrust_rt_nest_plain once per outermost iteration), a
; call to polyrust_rt_nest_next on the outermost loop's back edge that may send the
; rest of the entry to the plain copy, one call to polyrust_rt_access per header
; execution and one in front of each access, and a private descriptor of the nest's
; sites. A nest with an irreducible cycle, and one whose loop has no preheader, are
; left alone.
;
; RUN: %opt %loadpolyrust -passes=polyrust -polyrust-profile-generate=prof.json \
; RUN:   -polyrust-instrument=accesses -pass-remarks-analysis=polyrust \
; RUN:   -pass-remarks-missed=polyrust -S %s -o %t.ll 2> %t.remarks
; RUN: %FileCheck %s < %t.ll
; RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
; The result verifies, and the nests are not instrumented twice by a second run.
; RUN: %opt -passes=verify -disable-output %t.ll
; RUN: %opt %loadpolyrust -passes=polyrust -polyrust-profile-generate \
; RUN:   -polyrust-instrument=accesses -S %t.ll | %FileCheck %s --check-prefix=ONCE
; Without -polyrust-instrument (values, the default) these nests get no such call.
; RUN: %opt %loadpolyrust -passes=polyrust -polyrust-profile-generate -S %s \
; RUN:   | %FileCheck %s --check-prefix=VALUES

; Sites of copy2d: loop i (depth 1, no parent), loop j (depth 2, inside site 0), the
; load of B and the store to A (depth 2, inside site 1, 8 bytes each). Detection models
; the nest: modelled = 1. The descriptor: version 2, 4 sites, depth 2, the profile path.
; CHECK-DAG: @[[SITES:polyrust.sites[.0-9]*]] = private unnamed_addr constant [4 x { i32, i32, i32, i32, i32, i32, ptr }] [{ i32, i32, i32, i32, i32, i32, ptr } { i32 2, i32 1, i32 0, i32 0, i32 0, i32 -1, ptr @[[I:polyrust.site.name[.0-9]*]] }, { i32, i32, i32, i32, i32, i32, ptr } { i32 2, i32 2, i32 0, i32 0, i32 0, i32 0, ptr @[[J:polyrust.site.name[.0-9]*]] }, { i32, i32, i32, i32, i32, i32, ptr } { i32 0, i32 2, i32 8, i32 0, i32 0, i32 1, ptr @[[B:polyrust.site.name[.0-9]*]] }, { i32, i32, i32, i32, i32, i32, ptr } { i32 1, i32 2, i32 8, i32 0, i32 0, i32 1, ptr @[[A:polyrust.site.name[.0-9]*]] }]
; CHECK-DAG: @[[I]] = private unnamed_addr constant [2 x i8] c"i\00"
; CHECK-DAG: @[[J]] = private unnamed_addr constant [2 x i8] c"j\00"
; CHECK-DAG: @[[A]] = private unnamed_addr constant [2 x i8] c"A\00"
; CHECK-DAG: @[[B]] = private unnamed_addr constant [2 x i8] c"B\00"
; CHECK-DAG: @[[NEST:polyrust.nest[.0-9]*]] = private unnamed_addr constant { i32, i32, i32, i32, ptr, ptr, ptr, ptr, ptr, ptr, i32, i32, ptr } { i32 2, i32 4, i32 2, i32 0, ptr @[[ID:polyrust.id[.0-9]*]], ptr @{{polyrust.function[.0-9]*}}, ptr @{{polyrust.file[.0-9]*}}, ptr @{{polyrust.module[.0-9]*}}, ptr @[[SITES]], ptr @[[PATH:polyrust.profile[.0-9]*]], i32 1, i32 0, ptr null }
; CHECK-DAG: @[[ID]] = private unnamed_addr constant {{.*}} c"copy2d:0:{{[0-9a-f]+}}\00"
; CHECK-DAG: @[[PATH]] = private unnamed_addr constant {{.*}} c"prof.json\00"

; find: the loop (site 0) and its load of a (4 bytes); detection rejects the nest (it
; leaves early): modelled = 0. It leaves on the value it loads: one fact (a search).
; CHECK-DAG: @[[FSITES:polyrust.sites[.0-9]*]] = private unnamed_addr constant [2 x { i32, i32, i32, i32, i32, i32, ptr }] [{ i32, i32, i32, i32, i32, i32, ptr } { i32 2, i32 1, i32 0, i32 0, i32 0, i32 -1, ptr @{{.*}} }, { i32, i32, i32, i32, i32, i32, ptr } { i32 0, i32 1, i32 4, i32 0, i32 0, i32 0, ptr @{{.*}} }]
; CHECK-DAG: @[[FNEST:polyrust.nest[.0-9]*]] = private unnamed_addr constant { i32, i32, i32, i32, ptr, ptr, ptr, ptr, ptr, ptr, i32, i32, ptr } { i32 2, i32 2, i32 1, i32 0, ptr @{{.*}}, ptr @{{.*}}, ptr @{{.*}}, ptr @{{.*}}, ptr @[[FSITES]], ptr @{{.*}}, i32 0, i32 1, ptr @[[FFACTS:polyrust.facts[.0-9]*]] }
; CHECK-DAG: @[[FFACTS]] = private unnamed_addr constant [1 x {{.*}}] [{{.*}} { i32 4, i32 0,

; down: the loop, the load of x[i - 1], the store to x[i] (4 bytes), the memset of 16
; bytes of buf as one store; the memset of a run-time length is not recorded.
; CHECK-DAG: @[[DSITES:polyrust.sites[.0-9]*]] = private unnamed_addr constant [5 x { i32, i32, i32, i32, i32, i32, ptr }] [{ i32, i32, i32, i32, i32, i32, ptr } { i32 2, i32 1, i32 0, i32 0, i32 0, i32 -1, ptr @{{.*}} }, { i32, i32, i32, i32, i32, i32, ptr } { i32 0, i32 1, i32 4, i32 0, i32 0, i32 0, ptr @{{.*}} }, { i32, i32, i32, i32, i32, i32, ptr } { i32 1, i32 1, i32 4, i32 0, i32 0, i32 0, ptr @{{.*}} }, { i32, i32, i32, i32, i32, i32, ptr } { i32 1, i32 1, i32 16, i32 0, i32 0, i32 0, ptr @[[BUF:polyrust.site.name[.0-9]*]] }, { i32, i32, i32, i32, i32, i32, ptr } { i32 0, i32 1, i32 8, i32 0, i32 0, i32 0, ptr @{{.*}} }]
; CHECK-DAG: @[[BUF]] = private unnamed_addr constant [4 x i8] c"buf\00"

; CHECK-LABEL: define void @copy2d(
; CHECK-NEXT:  entry:
; CHECK-NEXT:    %[[IV:polyrust.iv]] = alloca [2 x i64]
; CHECK-NEXT:    %[[SLOT2:[0-9]+]] = getelementptr inbounds nuw i8, ptr %[[IV]], i64 8
; CHECK:       for.i.pre:
; CHECK-NEXT:    %[[BEGIN:[0-9]+]] = call i32 @polyrust_rt_nest_begin(ptr nonnull @[[NEST]])
; CHECK-NEXT:    %[[TOPLAIN:.*]] = icmp eq i32 %[[BEGIN]], 0
; CHECK-NEXT:    br i1 %[[TOPLAIN]], label %[[PLAINPRE:polyrust.plain[.a-z]*]], label %for.i.preheader
; CHECK:       for.i:
; CHECK-NEXT:    %[[CI:polyrust.iter[0-9]*]] = phi i64 [ %[[NEXTI:[0-9]+]], %[[RESUME:polyrust.resume]] ], [ 0, %for.i.preheader ]
; CHECK-NEXT:    %i = phi
; CHECK-NEXT:    store i64 %[[CI]], ptr %[[IV]]
; CHECK-NEXT:    call void @polyrust_rt_access(ptr nonnull @[[NEST]], i32 0, ptr nonnull %[[IV]], i64 0)
; CHECK:       for.j:
; CHECK-NEXT:    %[[CJ:polyrust.iter[0-9]*]] = phi i64 [ 0, %for.j.pre ], [ %[[NEXTJ:[0-9]+]], %for.j.body ]
; CHECK-NEXT:    %j = phi
; CHECK-NEXT:    store i64 %[[CJ]], ptr %[[SLOT2]]
; CHECK-NEXT:    call void @polyrust_rt_access(ptr nonnull @[[NEST]], i32 1, ptr nonnull %[[IV]], i64 0)
; CHECK:       for.j.body:
; CHECK:         %[[PB:[0-9]+]] = ptrtoint ptr %b.addr to i64
; CHECK-NEXT:    call void @polyrust_rt_access(ptr nonnull @[[NEST]], i32 2, ptr nonnull %[[IV]], i64 %[[PB]])
; CHECK-NEXT:    %b = load double, ptr %b.addr
; CHECK:         %[[PA:[0-9]+]] = ptrtoint ptr %a.addr to i64
; CHECK-NEXT:    call void @polyrust_rt_access(ptr nonnull @[[NEST]], i32 3, ptr nonnull %[[IV]], i64 %[[PA]])
; CHECK-NEXT:    store double %b1, ptr %a.addr
; CHECK:         %[[NEXTJ]] = add i64 %[[CJ]], 1
; CHECK-NEXT:    br i1 %jdone, label %for.j,
; CHECK:       for.i.latch:
; CHECK:         br i1 %idone, label %[[RESUME]], label %{{.*}}{{$}}
; The plain copy: the loops as they were, with a count per outermost iteration, and
; the same loop IDs.
; CHECK:       [[PLAINHEADER:polyrust.plain]]:
; CHECK-NEXT:    phi i32
; CHECK-NEXT:    call void @polyrust_rt_nest_plain(ptr nonnull @[[NEST]])
; CHECK-NOT:     call void @polyrust_rt_access
; CHECK:         br i1 %{{[0-9]+}}, label %[[PLAINHEADER]], label %{{.*}}, !llvm.loop ![[TAGS:[0-9]+]]
; Between two outermost iterations: go on, or take the rest of the entry to the plain
; copy (the back edge carries the loop's ID).
; CHECK:       [[RESUME]]:
; CHECK-NEXT:    %[[NEXTI]] = add i64 %[[CI]], 1
; CHECK-NEXT:    %[[NEXT:[0-9]+]] = call i32 @polyrust_rt_nest_next(ptr nonnull @[[NEST]])
; CHECK-NEXT:    %[[GOON:.*]] = icmp eq i32 %[[NEXT]], 0
; CHECK-NEXT:    br i1 %[[GOON]], label %for.i, label %{{.*}}, !llvm.loop ![[TAGS]]

; The early exit needs nothing: the counter is not read after the loop; the exit
; phi takes the value of whichever copy leaves.
; CHECK-LABEL: define i32 @find(
; CHECK:         call i32 @polyrust_rt_nest_begin(ptr nonnull @[[FNEST]])
; CHECK:       loop:
; CHECK:         %[[CF:polyrust.iter[0-9]*]] = phi i64
; CHECK:         store i64 %[[CF]], ptr %[[FIV:polyrust.iv]]
; CHECK-NEXT:    call void @polyrust_rt_access(ptr nonnull @[[FNEST]], i32 0, ptr nonnull %[[FIV]], i64 0)
; CHECK:       body:
; CHECK:         call void @polyrust_rt_access(ptr nonnull @[[FNEST]], i32 1, ptr nonnull %[[FIV]], i64 %{{[0-9]+}})
; CHECK-NEXT:    %v = load i32
; CHECK:       found:
; CHECK-NEXT:    %at = phi i32 [ %{{.*}}, %found.loopexit ], [ %{{.*}}, %found.loopexit{{[0-9]+}} ]
; CHECK-NEXT:    ret i32

; The counter counts the iterations of a loop that steps down by 3 from n; the memset
; of 16 bytes is one store of its first byte.
; CHECK-LABEL: define void @down(
; CHECK:       loop:
; CHECK-NEXT:    %[[CD:polyrust.iter[0-9]*]] = phi i64 [ %[[NEXTD:[0-9]+]], %polyrust.resume ], [ 0, %loop.preheader ]
; CHECK:       loop.body:
; CHECK:         %[[PBUF:[0-9]+]] = ptrtoint ptr %row to i64
; CHECK-NEXT:    call void @polyrust_rt_access(ptr nonnull @{{polyrust.nest[.0-9]*}}, i32 3, ptr nonnull %{{polyrust.iv[0-9]*}}, i64 %[[PBUF]])
; CHECK-NEXT:    call void @llvm.memset.p0.i64({{.*}}%row, i8 0, i64 16, i1 false)
; CHECK:         %[[NEXTD]] = add i64 %[[CD]], 1

; CHECK-LABEL: define void @irreducible(
; CHECK-NOT:     polyrust_rt
; CHECK:       }

; CHECK-LABEL: define void @computed_goto(
; CHECK-NOT:     polyrust_rt
; CHECK:       }

; The declarations say what the runtime touches.
; CHECK-DAG: declare void @polyrust_rt_access(ptr, i32, ptr, i64) #[[RT:[0-9]+]]
; CHECK-DAG: declare i32 @polyrust_rt_nest_begin(ptr) #[[RT]]
; CHECK-DAG: declare i32 @polyrust_rt_nest_next(ptr) #[[RT]]
; CHECK-DAG: declare void @polyrust_rt_nest_plain(ptr) #[[RT]]
; CHECK-DAG: attributes #[[RT]] = { nounwind memory(argmem: read, inaccessiblemem: readwrite) }
; The outermost loop is tagged: no later round models or rewrites the nest.
; CHECK-DAG: ![[TAGS]] = distinct !{![[TAGS]], ![[INSTRUMENTED:[0-9]+]], ![[HANDLED:[0-9]+]]}
; CHECK-DAG: ![[INSTRUMENTED]] = !{!"polyrust.instrumented"}
; CHECK-DAG: ![[HANDLED]] = !{!"polyrust.handled"}

; REMARK-DAG: remark: <unknown>:0:0: loop nest instrumented: its 2 loops and 2 memory accesses report their iteration vectors (nest copy2d:0:{{[0-9a-f]+}})
; REMARK-DAG: remark: <unknown>:0:0: loop nest instrumented: its 1 loop and 1 memory access report their iteration vectors (nest find:0:{{[0-9a-f]+}})
; REMARK-DAG: remark: <unknown>:0:0: accesses of the loop nest not recorded: memset of {{.*}} (its length is known only at run time)
; REMARK-DAG: remark: <unknown>:0:0: loop nest not instrumented for accesses: its control flow is irreducible
; REMARK-DAG: remark: <unknown>:0:0: loop nest not instrumented for accesses: the loop over i has no single block in front of it to start its counter in

; ONCE-COUNT-3: call i32 @polyrust_rt_nest_begin(
; ONCE-NOT: call i32 @polyrust_rt_nest_begin(

; VALUES-NOT: polyrust_rt_access
; VALUES-NOT: polyrust_rt_nest_begin

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define void @copy2d(i32 %n, i32 %m, ptr noalias %A, ptr noalias %B) {
; double A[][64], B[][64]; m <= 64
entry:
  %guard = icmp sgt i32 %n, 0
  br i1 %guard, label %for.i.pre, label %exit

for.i.pre:
  br label %for.i

for.i:
  %i = phi i32 [ 0, %for.i.pre ], [ %i1, %for.i.latch ]
  %inner = icmp sgt i32 %m, 0
  br i1 %inner, label %for.j.pre, label %for.i.latch

for.j.pre:
  br label %for.j

for.j:
  %j = phi i32 [ 0, %for.j.pre ], [ %j1, %for.j.body ]
  br label %for.j.body

for.j.body:
  %i64 = zext nneg i32 %i to i64
  %j64 = zext nneg i32 %j to i64
  %b.addr = getelementptr inbounds [64 x double], ptr %B, i64 %i64, i64 %j64
  %b = load double, ptr %b.addr, align 8
  %b1 = fadd double %b, 1.000000e+00
  %a.addr = getelementptr inbounds [64 x double], ptr %A, i64 %i64, i64 %j64
  store double %b1, ptr %a.addr, align 8
  %j1 = add nuw nsw i32 %j, 1
  %jdone = icmp slt i32 %j1, %m
  br i1 %jdone, label %for.j, label %for.i.latch.loopexit

for.i.latch.loopexit:
  br label %for.i.latch

for.i.latch:
  %i1 = add nuw nsw i32 %i, 1
  %idone = icmp slt i32 %i1, %n
  br i1 %idone, label %for.i, label %exit.loopexit

exit.loopexit:
  br label %exit

exit:
  ret void
}

define i32 @find(i32 %n, ptr %a, i32 %key) {
entry:
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %next ]
  %more = icmp slt i32 %i, %n
  br i1 %more, label %body, label %notfound

body:
  %i64 = zext nneg i32 %i to i64
  %addr = getelementptr inbounds i32, ptr %a, i64 %i64
  %v = load i32, ptr %addr, align 4
  %hit = icmp eq i32 %v, %key
  br i1 %hit, label %found, label %next

next:
  %i1 = add nuw nsw i32 %i, 1
  br label %loop

found:
  %at = phi i32 [ %i, %body ]
  ret i32 %at

notfound:
  ret i32 -1
}

define void @down(i32 %n, ptr %x, ptr %buf, i64 %len, ptr %dst) {
entry:
  br label %loop

loop:
  %i = phi i32 [ %n, %entry ], [ %i3, %loop.body ]
  %more = icmp sgt i32 %i, 0
  br i1 %more, label %loop.body, label %exit

loop.body:
  %i64 = zext nneg i32 %i to i64
  %prev = getelementptr float, ptr %x, i64 %i64
  %prev.addr = getelementptr i8, ptr %prev, i64 -4
  %p = load float, ptr %prev.addr, align 4
  %half = fmul float %p, 5.000000e-01
  %here = getelementptr inbounds float, ptr %x, i64 %i64
  store float %half, ptr %here, align 4
  %off = shl nsw i64 %i64, 4
  %row = getelementptr inbounds i8, ptr %buf, i64 %off
  call void @llvm.memset.p0.i64(ptr %row, i8 0, i64 16, i1 false)
  call void @llvm.memset.p0.i64(ptr %dst, i8 0, i64 %len, i1 false)
  %d = load i64, ptr %dst, align 8
  %i3 = add nsw i32 %i, -3
  br label %loop

exit:
  ret void
}

; The loop's body has a cycle entered at two blocks, a and b.
define void @irreducible(i32 %n, i1 %c, ptr %p) {
entry:
  br label %outer

outer:
  %i = phi i32 [ 0, %entry ], [ %i1, %latch ]
  br i1 %c, label %a, label %b

a:
  store i32 1, ptr %p, align 4
  %stop.a = load volatile i1, ptr %p, align 1
  br i1 %stop.a, label %latch, label %b

b:
  store i32 2, ptr %p, align 4
  %stop.b = load volatile i1, ptr %p, align 1
  br i1 %stop.b, label %latch, label %a

latch:
  %i1 = add nuw nsw i32 %i, 1
  %more = icmp slt i32 %i1, %n
  br i1 %more, label %outer, label %exit

exit:
  ret void
}

; A loop entered from an indirectbr has no preheader (LoopSimplify cannot split that
; edge).
define void @computed_goto(ptr %p, i64 %n, ptr %target) {
entry:
  indirectbr ptr %target, [label %loop, label %exit]

loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %a = getelementptr inbounds double, ptr %p, i64 %i
  store double 0.0, ptr %a, align 8
  %i1 = add nuw nsw i64 %i, 1
  %c = icmp slt i64 %i1, %n
  br i1 %c, label %loop, label %exit

exit:
  ret void
}

declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
