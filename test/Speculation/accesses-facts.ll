; The descriptor of an instrumented nest (version 2) carries the compiler's facts about
; its loops, which a run cannot see, in this order: per loop (preorder) its updates
; through memory (kind 3: out[i] loaded by site 3, `+`, stored by site 4, in loop i),
; the sums it carries in registers (kind 0, a reduction, "+": `sum` in loop k) and the
; values it carries otherwise (kind 1, a recurrence: `t` is both multiplied and added
; into); then the calls whose accesses are not recorded (kind 2, on the innermost loop
; around them). The loop counters are no facts.
;
; RUN: %opt %loadpolyrust -passes=polyrust -polyrust-profile-generate \
; RUN:   -polyrust-instrument=accesses -S %s | %FileCheck %s

; CHECK-DAG: @[[FACTS:polyrust.facts[.0-9]*]] = private unnamed_addr constant [4 x { i32, i32, i32, i32, ptr, ptr }] [{ i32, i32, i32, i32, ptr, ptr } { i32 3, i32 0, i32 3, i32 4, ptr @[[PLUS:polyrust.site.name[.0-9]*]], ptr @[[OUT:polyrust.site.name[.0-9]*]] }, { i32, i32, i32, i32, ptr, ptr } { i32 0, i32 1, i32 -1, i32 -1, ptr @[[PLUS]], ptr @[[NONE:polyrust.site.name[.0-9]*]] }, { i32, i32, i32, i32, ptr, ptr } { i32 1, i32 1, i32 -1, i32 -1, ptr @[[NONE]], ptr @[[NONE]] }, { i32, i32, i32, i32, ptr, ptr } { i32 2, i32 0, i32 -1, i32 -1, ptr @[[NONE]], ptr @[[G:polyrust.site.name[.0-9]*]] }]
; CHECK-DAG: @[[PLUS]] = private unnamed_addr constant [2 x i8] c"+\00"
; CHECK-DAG: @[[OUT]] = private unnamed_addr constant [4 x i8] c"out\00"
; CHECK-DAG: @[[NONE]] = private unnamed_addr constant [1 x i8] zeroinitializer
; CHECK-DAG: @[[G]] = private unnamed_addr constant [6 x i8] c"touch\00"
; CHECK-DAG: @{{polyrust.nest[.0-9]*}} = private unnamed_addr constant { i32, i32, i32, i32, ptr, ptr, ptr, ptr, ptr, ptr, i32, i32, ptr } { i32 2, i32 5, i32 2, {{.*}}, i32 4, ptr @[[FACTS]] }

declare void @touch(ptr)

define void @rows(i32 %n, ptr %a, ptr %out) {
entry:
  %guard = icmp sgt i32 %n, 0
  br i1 %guard, label %i.pre, label %exit

i.pre:
  br label %i.header

i.header:
  %i = phi i32 [ 0, %i.pre ], [ %i.next, %i.latch ]
  call void @touch(ptr %out)
  br label %k.header

k.header:
  %k = phi i32 [ 0, %i.header ], [ %k.next, %k.header ]
  %sum = phi double [ 0.0, %i.header ], [ %sum.next, %k.header ]
  %t = phi double [ 1.0, %i.header ], [ %t.next, %k.header ]
  %p = getelementptr double, ptr %a, i32 %k
  %x = load double, ptr %p
  %sum.next = fadd double %sum, %x
  %tx = fmul double %t, %x
  %t.next = fadd double %tx, %t
  %k.next = add i32 %k, 1
  %k.done = icmp eq i32 %k.next, %n
  br i1 %k.done, label %i.latch, label %k.header

i.latch:
  %s = phi double [ %sum.next, %k.header ]
  %tt = phi double [ %t.next, %k.header ]
  %r = fadd double %s, %tt
  %q = getelementptr double, ptr %out, i32 %i
  %old = load double, ptr %q
  %new = fadd double %old, %r
  store double %new, ptr %q
  %i.next = add i32 %i, 1
  %i.done = icmp eq i32 %i.next, %n
  br i1 %i.done, label %exit, label %i.header

exit:
  ret void
}
