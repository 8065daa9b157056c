; ModuleID = '<stdin>'
source_filename = "test/Robustness/Inputs/regressions/gen-107-quasi-affine-deps.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@A0 = external hidden unnamed_addr global [44 x [44 x [44 x i64]]], align 16

; Function Attrs: nofree noinline norecurse nosync nounwind memory(readwrite, argmem: read, inaccessiblemem: none, target_mem0: none, target_mem1: none) uwtable
define hidden fastcc void @kernel(i32 noundef range(i32 0, 41) %0, i32 noundef range(i32 0, 41) %1, ptr noalias noundef nonnull readonly captures(none) %2) unnamed_addr #0 {
  %4 = icmp eq i32 %0, 0
  br i1 %4, label %19, label %5

5:                                                ; preds = %3
  %6 = add nuw nsw i32 %0, 4
  %7 = zext nneg i32 %6 to i64
  %8 = zext nneg i32 %0 to i64
  br label %9

9:                                                ; preds = %64, %5
  %10 = phi i64 [ 0, %5 ], [ %65, %64 ]
  %11 = mul nuw nsw i64 %10, %7
  %12 = add nuw nsw i64 %10, 2
  %13 = getelementptr inbounds nuw [44 x i64], ptr @A0, i64 %12
  %14 = getelementptr inbounds nuw i64, ptr @A0, i64 %12
  %15 = getelementptr inbounds nuw i32, ptr %2, i64 %11
  br label %50

16:                                               ; preds = %64
  %17 = tail call i32 @llvm.umin.i32(i32 %0, i32 %1)
  %18 = icmp eq i32 %1, 0
  br i1 %18, label %19, label %21

19:                                               ; preds = %16, %3
  %20 = add nsw i32 %0, -1
  br label %92

21:                                               ; preds = %16
  %22 = add nsw i32 %0, -1
  %23 = icmp eq i32 %0, 1
  br i1 %23, label %92, label %24

24:                                               ; preds = %21
  %25 = zext nneg i32 %1 to i64
  %26 = zext nneg i32 %17 to i64
  %27 = zext i32 %22 to i64
  br label %28

28:                                               ; preds = %47, %24
  %29 = phi i64 [ 0, %24 ], [ %48, %47 ]
  %30 = phi i64 [ 0, %24 ], [ %44, %47 ]
  %31 = getelementptr inbounds nuw [44 x [44 x i64]], ptr @A0, i64 %29
  br label %32

32:                                               ; preds = %32, %28
  %33 = phi i64 [ %45, %32 ], [ 0, %28 ]
  %34 = phi i64 [ %44, %32 ], [ %30, %28 ]
  %35 = lshr i64 %33, 1
  %36 = and i64 %35, 2147483647
  %37 = getelementptr inbounds nuw [44 x i64], ptr %31, i64 %36
  %38 = getelementptr inbounds nuw i64, ptr %37, i64 %33
  %39 = getelementptr inbounds nuw i8, ptr %38, i64 46832
  %40 = load i64, ptr %39, align 8, !tbaa !9
  %41 = add i64 %40, 1
  %42 = and i64 %41, 255
  %43 = mul nuw nsw i64 %42, %25
  %44 = add i64 %34, %43
  %45 = add nuw nsw i64 %33, 1
  %46 = icmp eq i64 %45, %27
  br i1 %46, label %47, label %32, !llvm.loop !11

47:                                               ; preds = %32
  %48 = add nuw nsw i64 %29, 1
  %49 = icmp eq i64 %48, %26
  br i1 %49, label %92, label %28, !llvm.loop !14

50:                                               ; preds = %67, %9
  %51 = phi i64 [ 0, %9 ], [ %68, %67 ]
  %52 = add nuw nsw i64 %51, 2
  %53 = mul nuw nsw i64 %52, %7
  %54 = getelementptr inbounds nuw i32, ptr %15, i64 %52
  %55 = load i32, ptr %54, align 4, !tbaa !5
  %56 = and i32 %55, 1023
  %57 = add nuw nsw i64 %51, 3
  %58 = getelementptr inbounds nuw [44 x [44 x i64]], ptr @A0, i64 %57
  %59 = getelementptr inbounds nuw [44 x i64], ptr %58, i64 %51
  %60 = getelementptr inbounds nuw i64, ptr %59, i64 %10
  %61 = getelementptr inbounds nuw [44 x [44 x i64]], ptr %13, i64 %51
  %62 = getelementptr inbounds nuw [44 x i64], ptr %14, i64 %57
  %63 = getelementptr inbounds nuw i32, ptr %2, i64 %53
  br label %70

64:                                               ; preds = %67
  %65 = add nuw nsw i64 %10, 1
  %66 = icmp eq i64 %65, %8
  br i1 %66, label %16, label %9, !llvm.loop !15

67:                                               ; preds = %70
  %68 = add nuw nsw i64 %51, 1
  %69 = icmp eq i64 %68, %8
  br i1 %69, label %64, label %50, !llvm.loop !16

70:                                               ; preds = %70, %50
  %71 = phi i64 [ 0, %50 ], [ %90, %70 ]
  %72 = add nuw nsw i64 %71, %51
  %73 = lshr i64 %72, 1
  %74 = and i64 %73, 2147483647
  %75 = getelementptr inbounds nuw i32, ptr %63, i64 %74
  %76 = load i32, ptr %75, align 4, !tbaa !5
  %77 = and i32 %76, 1023
  %78 = add nuw nsw i32 %56, %77
  %79 = zext nneg i32 %78 to i64
  %80 = load i64, ptr %60, align 8, !tbaa !9
  %81 = and i64 %80, 1023
  %82 = add nuw nsw i64 %81, %79
  %83 = getelementptr inbounds nuw i64, ptr %61, i64 %71
  %84 = getelementptr inbounds nuw i8, ptr %83, i64 24
  store i64 %82, ptr %84, align 8, !tbaa !9
  %85 = and i64 %79, 1023
  %86 = add nuw nsw i64 %71, %10
  %87 = lshr i64 %86, 1
  %88 = and i64 %87, 2147483647
  %89 = getelementptr inbounds nuw [44 x [44 x i64]], ptr %62, i64 %88
  store i64 %85, ptr %89, align 8, !tbaa !9
  %90 = add nuw nsw i64 %71, 1
  %91 = icmp eq i64 %90, %8
  br i1 %91, label %67, label %70, !llvm.loop !17

92:                                               ; preds = %47, %21, %19
  %93 = phi i32 [ %20, %19 ], [ %22, %21 ], [ %22, %47 ]
  %94 = phi i64 [ 0, %19 ], [ 0, %21 ], [ %44, %47 ]
  store i64 %94, ptr getelementptr inbounds nuw (i8, ptr @A0, i64 15848), align 8, !tbaa !9
  br i1 %4, label %101, label %95

95:                                               ; preds = %92
  %96 = add nuw nsw i32 %0, 4
  %97 = zext nneg i32 %96 to i64
  %98 = zext nneg i32 %0 to i64
  %99 = zext nneg i32 %96 to i64
  %100 = sext i32 %93 to i64
  br label %102

101:                                              ; preds = %131, %92
  ret void

102:                                              ; preds = %131, %95
  %103 = phi i64 [ %98, %95 ], [ %104, %131 ]
  %104 = add nsw i64 %103, -1
  %105 = trunc nuw nsw i64 %104 to i32
  %106 = tail call i32 @llvm.usub.sat.i32(i32 %105, i32 2)
  %107 = add nuw nsw i64 %103, 2
  %108 = trunc nuw nsw i64 %107 to i32
  %109 = tail call i32 @llvm.smin.i32(i32 %0, i32 %108)
  %110 = icmp slt i32 %106, %109
  br i1 %110, label %111, label %131

111:                                              ; preds = %102
  %112 = tail call i32 @llvm.usub.sat.i32(i32 %105, i32 2)
  %113 = zext i32 %112 to i64
  %114 = getelementptr inbounds nuw [44 x [44 x i64]], ptr @A0, i64 %103
  %115 = add nuw nsw i64 %103, 1
  %116 = getelementptr inbounds nuw i64, ptr %114, i64 %115
  %117 = sub nuw nsw i64 %100, %104
  %118 = getelementptr [44 x [44 x i64]], ptr @A0, i64 %117
  %119 = getelementptr i8, ptr %118, i64 30976
  %120 = getelementptr inbounds nuw i64, ptr %119, i64 %107
  %121 = lshr i64 %104, 1
  %122 = and i64 %121, 2147483647
  %123 = getelementptr inbounds nuw [44 x i64], ptr @A0, i64 %122
  %124 = trunc i64 %107 to i32
  %125 = mul i32 %96, %124
  %126 = zext i32 %125 to i64
  %127 = getelementptr inbounds nuw i32, ptr %2, i64 %126
  %128 = getelementptr i32, ptr %2, i64 %104
  %129 = getelementptr i32, ptr %2, i64 %115
  %130 = getelementptr inbounds nuw i32, ptr %2, i64 %126
  br label %154

131:                                              ; preds = %154, %102
  %132 = getelementptr inbounds nuw [44 x [44 x i64]], ptr @A0, i64 %104
  %133 = getelementptr inbounds nuw [44 x i64], ptr %132, i64 %103
  %134 = getelementptr inbounds nuw i64, ptr %133, i64 %104
  %135 = load i64, ptr %134, align 8, !tbaa !9
  %136 = mul nuw nsw i64 %103, %99
  %137 = getelementptr inbounds nuw i32, ptr %2, i64 %136
  %138 = getelementptr inbounds nuw i32, ptr %137, i64 %107
  %139 = load i32, ptr %138, align 4, !tbaa !5
  %140 = zext i32 %139 to i64
  %141 = add i64 %135, %140
  %142 = getelementptr inbounds nuw i8, ptr %132, i64 30976
  %143 = getelementptr inbounds nuw [44 x i64], ptr %142, i64 %104
  %144 = getelementptr inbounds nuw i64, ptr %143, i64 %103
  %145 = load i64, ptr %144, align 8, !tbaa !9
  %146 = add i64 %141, %145
  %147 = and i64 %146, 255
  %148 = getelementptr inbounds nuw [44 x [44 x i64]], ptr @A0, i64 %103
  %149 = getelementptr inbounds nuw [44 x i64], ptr %148, i64 %104
  %150 = getelementptr inbounds nuw i64, ptr %149, i64 %103
  %151 = load i64, ptr %150, align 8, !tbaa !9
  %152 = add nsw i64 %147, %151
  store i64 %152, ptr %150, align 8, !tbaa !9
  %153 = icmp samesign ugt i64 %103, 1
  br i1 %153, label %102, label %101, !llvm.loop !18

154:                                              ; preds = %154, %111
  %155 = phi i64 [ %113, %111 ], [ %156, %154 ]
  %156 = add nuw nsw i64 %155, 1
  %157 = getelementptr inbounds nuw [44 x i64], ptr %116, i64 %156
  %158 = load i64, ptr %157, align 8, !tbaa !9
  %159 = and i64 %158, 1023
  %160 = getelementptr inbounds nuw i32, ptr %127, i64 %156
  %161 = load i32, ptr %160, align 4, !tbaa !5
  %162 = and i32 %161, 1023
  %163 = zext nneg i32 %162 to i64
  %164 = add nuw nsw i64 %159, %163
  %165 = getelementptr inbounds nuw [44 x i64], ptr %120, i64 %156
  store i64 %164, ptr %165, align 8, !tbaa !9
  %166 = add nuw nsw i64 %155, 2
  %167 = mul nuw nsw i64 %166, %97
  %168 = getelementptr i32, ptr %128, i64 %167
  %169 = load i32, ptr %168, align 4, !tbaa !5
  %170 = and i32 %169, 1023
  %171 = zext nneg i32 %170 to i64
  %172 = getelementptr inbounds nuw [44 x [44 x i64]], ptr @A0, i64 %155
  %173 = add nuw nsw i64 %155, 3
  %174 = getelementptr inbounds nuw [44 x i64], ptr %172, i64 %173
  %175 = getelementptr inbounds nuw i64, ptr %174, i64 %103
  %176 = load i64, ptr %175, align 8, !tbaa !9
  %177 = and i64 %176, 1023
  %178 = or i64 %177, %171
  %179 = getelementptr inbounds nuw [44 x i64], ptr %119, i64 %155
  %180 = getelementptr inbounds nuw i64, ptr %179, i64 %173
  store i64 %178, ptr %180, align 8, !tbaa !9
  %181 = mul nuw nsw i64 %156, %97
  %182 = getelementptr i32, ptr %129, i64 %181
  %183 = load i32, ptr %182, align 4, !tbaa !5
  %184 = getelementptr inbounds nuw i32, ptr %130, i64 %166
  %185 = load i32, ptr %184, align 4, !tbaa !5
  %186 = or i32 %185, %183
  %187 = and i32 %186, 1023
  %188 = zext nneg i32 %187 to i64
  %189 = add nuw i64 %155, %188
  %190 = getelementptr inbounds nuw [44 x [44 x i64]], ptr %123, i64 %173
  %191 = getelementptr inbounds nuw i8, ptr %190, i64 1056
  %192 = getelementptr inbounds nuw i64, ptr %191, i64 %156
  store i64 %189, ptr %192, align 8, !tbaa !9
  %193 = trunc nuw i64 %156 to i32
  %194 = icmp sgt i32 %109, %193
  br i1 %194, label %154, label %131, !llvm.loop !19
}

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.umin.i32(i32, i32) #1

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.smin.i32(i32, i32) #1

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.usub.sat.i32(i32, i32) #1

attributes #0 = { nofree noinline norecurse nosync nounwind memory(readwrite, argmem: read, inaccessiblemem: none, target_mem0: none, target_mem1: none) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.module.flags = !{!0, !1, !2, !3}
!llvm.ident = !{!4}
!llvm.errno.tbaa = !{!5}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 8, !"PIC Level", i32 2}
!2 = !{i32 7, !"PIE Level", i32 2}
!3 = !{i32 7, !"uwtable", i32 2}
!4 = !{!"Debian clang version 22.1.8 (1~deb12u1)"}
!5 = !{!6, !6, i64 0}
!6 = !{!"int", !7, i64 0}
!7 = !{!"omnipotent char", !8, i64 0}
!8 = !{!"Simple C/C++ TBAA"}
!9 = !{!10, !10, i64 0}
!10 = !{!"long", !7, i64 0}
!11 = distinct !{!11, !12, !13}
!12 = !{!"llvm.loop.mustprogress"}
!13 = !{!"llvm.loop.unroll.disable"}
!14 = distinct !{!14, !12, !13}
!15 = distinct !{!15, !12, !13}
!16 = distinct !{!16, !12, !13}
!17 = distinct !{!17, !12, !13}
!18 = distinct !{!18, !12, !13}
!19 = distinct !{!19, !12, !13}
