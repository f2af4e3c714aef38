//! Small conversions between OpenCV matrices and nalgebra types.

use nalgebra::{Isometry3, Matrix3, Rotation3, Translation3, UnitQuaternion, Vector3};
use opencv::core::{CV_64F, Mat};
use opencv::prelude::*;

use crate::error::{CvContext, VisionError};

/// A dense `f64` Mat from rows (all rows the same length).
pub(crate) fn mat_from_rows(rows: &[Vec<f64>]) -> Result<Mat, VisionError> {
    Mat::from_slice_2d(rows).during("building a matrix")
}

/// Every element of a Mat as `f64`, row-major, whatever its depth.
pub(crate) fn mat_values(mat: &Mat) -> Result<Vec<f64>, VisionError> {
    let mut as_f64 = Mat::default();
    mat.convert_to(&mut as_f64, CV_64F, 1.0, 0.0)
        .during("converting a matrix")?;
    let continuous = if as_f64.is_continuous() {
        as_f64
    } else {
        as_f64.try_clone().during("copying a matrix")?
    };
    Ok(continuous
        .data_typed::<f64>()
        .during("reading a matrix")?
        .to_vec())
}

pub(crate) fn matrix3_to_mat(m: &Matrix3<f64>) -> Result<Mat, VisionError> {
    mat_from_rows(
        &(0..3)
            .map(|r| vec![m[(r, 0)], m[(r, 1)], m[(r, 2)]])
            .collect::<Vec<_>>(),
    )
}

pub(crate) fn column_mat(values: &[f64]) -> Result<Mat, VisionError> {
    mat_from_rows(&values.iter().map(|v| vec![*v]).collect::<Vec<_>>())
}

/// OpenCV's (rvec, tvec) pair as a rigid transform: `X_to = R(rvec) X_from + tvec`.
pub fn isometry_from_rvec_tvec(rvec: [f64; 3], tvec: [f64; 3]) -> Isometry3<f64> {
    let rotation = Rotation3::new(Vector3::from(rvec));
    Isometry3::from_parts(
        Translation3::from(Vector3::from(tvec)),
        UnitQuaternion::from_rotation_matrix(&rotation),
    )
}

/// The inverse of [`isometry_from_rvec_tvec`].
pub fn rvec_tvec_from_isometry(pose: &Isometry3<f64>) -> ([f64; 3], [f64; 3]) {
    let rvec = pose.rotation.scaled_axis();
    let t = pose.translation.vector;
    ([rvec.x, rvec.y, rvec.z], [t.x, t.y, t.z])
}
