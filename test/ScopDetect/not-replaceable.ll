; A region new code cannot replace is still detected and modelled, and detection says
; why it stays as it is: here the loop's phi `%cur` (the value of the previous
; iteration) is read after the loop, and a float recurrence has no value there that
; new code could recompute. print<polyrust-detect> names the reason under the region;
; the pass leaves the region unchanged with the same words.
; RUN: %opt %loadpolyrust -passes='print<polyrust-detect>' -disable-output %s 2>&1 | %FileCheck %s
; RUN: %opt %loadpolyrust -passes=polyrust -pass-remarks-missed=polyrust -disable-output %s 2>&1 \
; RUN:   | %FileCheck %s --check-prefix=REMARK

; CHECK-LABEL: polyrust-detect: function 'previous'
; CHECK-NEXT: region previous:loop: 1 loop nest, 1 loop, depth 1, 1 statement
; CHECK-NEXT: left unchanged, not-replaceable: new code cannot replace the region: cur, a phi of a loop header in the region, is used after it, and its last value cannot be recomputed there
; REMARK: remark: <unknown>:0:0: region in previous at block %loop left unchanged: cur, a phi of a loop header in the region, is used after it, and its last value cannot be recomputed there
define float @previous(ptr %A, ptr %B, i64 %n) {
entry:
  %guard = icmp sgt i64 %n, 0
  br i1 %guard, label %loop, label %exit
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %cur = phi float [ 0.0, %entry ], [ %a, %loop ]
  %pa = getelementptr float, ptr %A, i64 %i
  %a = load float, ptr %pa
  %pb = getelementptr float, ptr %B, i64 %i
  store float %cur, ptr %pb
  %i.next = add nsw i64 %i, 1
  %c = icmp slt i64 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  %prev = phi float [ 0.0, %entry ], [ %cur, %loop ]
  ret float %prev
}

; A region new code can replace gets no such line.
; CHECK-LABEL: polyrust-detect: function 'copy'
; CHECK-NEXT: region copy:loop: 1 loop nest, 1 loop, depth 1, 1 statement
; CHECK-NOT: left unchanged
define void @copy(ptr %A, ptr %B, i64 %n) {
entry:
  %guard = icmp sgt i64 %n, 0
  br i1 %guard, label %loop, label %exit
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %pa = getelementptr float, ptr %A, i64 %i
  %a = load float, ptr %pa
  %pb = getelementptr float, ptr %B, i64 %i
  store float %a, ptr %pb
  %i.next = add nsw i64 %i, 1
  %c = icmp slt i64 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}
