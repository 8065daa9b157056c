; Rejections that need hand-written IR: several latches, irreducible control flow,
; an alloca and an instruction without a model (va_arg). Each is reported with its
; reason by print<polyrust-detect> and as a missed remark, in the source's terms (here
; the IR's names); -polyrust-debug-remarks adds the IR itself.
; RUN: %opt %loadpolyrust -passes='print<polyrust-detect>' -disable-output %s 2>&1 | %FileCheck %s
; RUN: %opt %loadpolyrust -passes=polyrust -pass-remarks-missed=polyrust -disable-output %s 2>&1 \
; RUN:   | %FileCheck %s --check-prefix=REMARK
; RUN: %opt %loadpolyrust -passes=polyrust -pass-remarks-missed=polyrust -disable-output \
; RUN:   -polyrust-debug-remarks %s 2>&1 | %FileCheck %s --check-prefix=DEBUG

; The pass puts loops in simplified form first (LLVM's loop-simplify: one latch, a
; preheader, dedicated exits), so only the printer sees the two latches; the pass sees
; one latch and the two exits.
; CHECK-LABEL: polyrust-detect: function 'two_latches'
; CHECK: loop-shape: loop is not in canonical form: loop over i has several latches
; REMARK: remark: <unknown>:0:0: loop not modelled: loop has more than one exit: loop over i is left from 2 places{{$}}
; DEBUG: remark: <unknown>:0:0: loop not modelled: loop has more than one exit: loop over i [IR: %header] is left from 2 places{{$}}
define void @two_latches(ptr %A, i64 %n) {
entry:
  br label %header
header:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch1 ], [ %i.next, %latch2 ]
  %p = getelementptr double, ptr %A, i64 %i
  store double 1.0, ptr %p
  %i.next = add nsw i64 %i, 1
  %odd = and i64 %i, 1
  %c = icmp eq i64 %odd, 0
  br i1 %c, label %latch1, label %latch2
latch1:
  %c1 = icmp slt i64 %i.next, %n
  br i1 %c1, label %header, label %exit
latch2:
  %c2 = icmp slt i64 %i.next, %n
  br i1 %c2, label %header, label %exit
exit:
  ret void
}

; CHECK-LABEL: polyrust-detect: function 'irreducible'
; CHECK: irreducible-control-flow: irreducible control flow
; REMARK: remark: <unknown>:0:0: loop not modelled: irreducible control flow: cycle through block %left that is not a loop
define void @irreducible(ptr %A, i64 %n, i1 %k) {
entry:
  br label %header
header:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  br i1 %k, label %left, label %right
left:
  %pl = getelementptr double, ptr %A, i64 %i
  store double 1.0, ptr %pl
  br label %right
right:
  %pr = getelementptr double, ptr %A, i64 %i
  %v = load double, ptr %pr
  %again = fcmp olt double %v, 0.0
  br i1 %again, label %left, label %latch
latch:
  %i.next = add nsw i64 %i, 1
  %c = icmp slt i64 %i.next, %n
  br i1 %c, label %header, label %exit
exit:
  ret void
}

; CHECK-LABEL: polyrust-detect: function 'with_alloca'
; CHECK: alloca: stack allocation inside the loop nest: variable tmp{{$}}
; REMARK: remark: <unknown>:0:0: loop not modelled: stack allocation inside the loop nest: variable tmp{{$}}
; DEBUG: remark: <unknown>:0:0: loop not modelled: stack allocation inside the loop nest: variable tmp [IR: %tmp = alloca double, align 8]{{$}}
define void @with_alloca(ptr %A, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %tmp = alloca double
  store double 2.0, ptr %tmp
  %p = getelementptr double, ptr %A, i64 %i
  store double 1.0, ptr %p
  %i.next = add nsw i64 %i, 1
  %c = icmp slt i64 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

; CHECK-LABEL: polyrust-detect: function 'with_va_arg'
; CHECK: unsupported-instruction: unsupported instruction: va_arg{{$}}
; REMARK: remark: <unknown>:0:0: loop not modelled: unsupported instruction: va_arg{{$}}
; DEBUG: remark: <unknown>:0:0: loop not modelled: unsupported instruction: va_arg [IR: %x = va_arg ptr %ap, double]{{$}}
define void @with_va_arg(ptr %A, i64 %n, ptr %ap) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %x = va_arg ptr %ap, double
  %p = getelementptr double, ptr %A, i64 %i
  store double %x, ptr %p
  %i.next = add nsw i64 %i, 1
  %c = icmp slt i64 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}
