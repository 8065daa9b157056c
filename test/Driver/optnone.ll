; optnone functions (clang -O0 code) are never handed to the Rust side: ScalarEvolution
; gives up on them. The printers say so instead of printing nothing.
; RUN: %opt %loadpolyrust -passes='polyrust,function(print<polyrust-loops>)' -pass-remarks-analysis=polyrust \
; RUN:   -disable-output %s 2>&1 | %FileCheck %s
; CHECK: polyrust: function 'f' is optnone; not analysed
; CHECK-NOT: remark

define void @f(ptr %A, i64 %n) noinline optnone {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %p = getelementptr double, ptr %A, i64 %i
  store double 1.0, ptr %p
  %i.next = add i64 %i, 1
  %c = icmp slt i64 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}
