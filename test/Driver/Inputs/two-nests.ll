; Two functions, three loop nests, with debug locations (line 2/4 in @first, line 9 in @second).
define void @first(ptr %A, i64 %n) !dbg !5 {
entry:
  %guard = icmp sgt i64 %n, 0
  br i1 %guard, label %a, label %mid
a:
  %i = phi i64 [ 0, %entry ], [ %i.next, %a ]
  %p = getelementptr inbounds double, ptr %A, i64 %i
  store double 0.0, ptr %p, !dbg !8
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp slt i64 %i.next, %n
  br i1 %c, label %a, label %mid, !dbg !8, !llvm.loop !12
mid:
  br i1 %guard, label %b, label %exit
b:
  %k = phi i64 [ 0, %mid ], [ %k.next, %b ]
  %q = getelementptr inbounds double, ptr %A, i64 %k
  store double 1.0, ptr %q, !dbg !9
  %k.next = add nuw nsw i64 %k, 1
  %ck = icmp slt i64 %k.next, %n
  br i1 %ck, label %b, label %exit, !dbg !9, !llvm.loop !14
exit:
  ret void
}

define void @second(ptr %A, i64 %n) !dbg !10 {
entry:
  %guard = icmp sgt i64 %n, 0
  br i1 %guard, label %loop, label %exit
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %p = getelementptr inbounds double, ptr %A, i64 %i
  store double 2.0, ptr %p, !dbg !11
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp slt i64 %i.next, %n
  br i1 %c, label %loop, label %exit, !dbg !11, !llvm.loop !16
exit:
  ret void
}

define void @noloops() {
  ret void
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}
!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, producer: "hand", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug)
!1 = !DIFile(filename: "two-nests.c", directory: "/src")
!2 = !DISubroutineType(types: !{})
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 7, !"Dwarf Version", i32 5}
!5 = distinct !DISubprogram(name: "first", scope: !1, file: !1, line: 1, type: !2, unit: !0)
!8 = !DILocation(line: 2, column: 3, scope: !5)
!9 = !DILocation(line: 4, column: 3, scope: !5)
!10 = distinct !DISubprogram(name: "second", scope: !1, file: !1, line: 8, type: !2, unit: !0)
!11 = !DILocation(line: 9, column: 3, scope: !10)
!12 = distinct !{!12, !8}
!14 = distinct !{!14, !9}
!16 = distinct !{!16, !11}
