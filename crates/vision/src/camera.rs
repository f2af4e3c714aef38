//! A calibrated camera: projection of table points into the image and back-projection of pixels
//! onto horizontal planes, in pure nalgebra so the pose fit does not cross into OpenCV.

use nalgebra::{Isometry3, Matrix3, Point2, Point3, Vector3};

use crate::calibration::Intrinsics;

/// A step of the distortion inversion this small (normalised image coordinates, about 1e-9 px)
/// ends it.
const CONVERGED: f64 = 1e-12;

/// Intrinsics plus the table pose: everything needed to go between pixels and the table frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Camera {
    pub intrinsics: Intrinsics,
    camera_from_table: Isometry3<f64>,
    table_from_camera: Isometry3<f64>,
    /// `camera_from_table`'s rotation as a matrix: projecting is the fit's inner loop, and a
    /// matrix turns a point in half the arithmetic of a quaternion.
    rotation_camera_from_table: Matrix3<f64>,
}

impl Camera {
    pub fn new(intrinsics: Intrinsics, camera_from_table: Isometry3<f64>) -> Camera {
        Camera {
            intrinsics,
            table_from_camera: camera_from_table.inverse(),
            rotation_camera_from_table: camera_from_table
                .rotation
                .to_rotation_matrix()
                .into_inner(),
            camera_from_table,
        }
    }

    /// The same camera with another lens: `distortion` (OpenCV's k1 k2 p1 p2 k3) for its own.
    pub fn with_distortion(&self, distortion: [f64; 5]) -> Camera {
        let mut intrinsics = self.intrinsics.clone();
        intrinsics.distortion = distortion;
        Camera::new(intrinsics, self.camera_from_table)
    }

    /// The table's pose in the camera frame.
    pub fn camera_from_table(&self) -> &Isometry3<f64> {
        &self.camera_from_table
    }

    /// The camera's pose in the table frame.
    pub fn table_from_camera(&self) -> &Isometry3<f64> {
        &self.table_from_camera
    }

    /// The camera centre in the table frame, mm.
    pub fn centre_table(&self) -> Point3<f64> {
        Point3::from(self.table_from_camera.translation.vector)
    }

    /// Pixel of a point given in the camera frame; `None` behind the camera.
    #[inline]
    pub fn project_camera(&self, p: &Point3<f64>) -> Option<Point2<f64>> {
        if p.z <= 1e-6 {
            return None;
        }
        let (x, y) = (p.x / p.z, p.y / p.z);
        let [k1, k2, p1, p2, k3] = self.intrinsics.distortion;
        let r2 = x * x + y * y;
        let radial = 1.0 + r2 * (k1 + r2 * (k2 + r2 * k3));
        let xd = x * radial + 2.0 * p1 * x * y + p2 * (r2 + 2.0 * x * x);
        let yd = y * radial + p1 * (r2 + 2.0 * y * y) + 2.0 * p2 * x * y;
        let k = &self.intrinsics.camera_matrix;
        Some(Point2::new(
            k[(0, 0)] * xd + k[(0, 1)] * yd + k[(0, 2)],
            k[(1, 1)] * yd + k[(1, 2)],
        ))
    }

    /// Pixel of a point given in the table frame; `None` behind the camera. (Inlined: a
    /// silhouette projects its five corners independently, and they overlap when inlined.)
    #[inline]
    pub fn project_table(&self, p: &Point3<f64>) -> Option<Point2<f64>> {
        let in_camera =
            self.rotation_camera_from_table * p.coords + self.camera_from_table.translation.vector;
        self.project_camera(&Point3::from(in_camera))
    }

    /// Unit direction (camera frame) of the ray through a pixel, undoing lens distortion.
    pub fn ray_camera(&self, pixel: &Point2<f64>) -> Vector3<f64> {
        let k = &self.intrinsics.camera_matrix;
        let yd = (pixel.y - k[(1, 2)]) / k[(1, 1)];
        let xd = (pixel.x - k[(0, 2)] - k[(0, 1)] * yd) / k[(0, 0)];
        let [k1, k2, p1, p2, k3] = self.intrinsics.distortion;
        let (mut x, mut y) = (xd, yd);
        // Fixed-point inversion of the distortion model, as OpenCV's undistortPoints does, up
        // to 20 steps but stopped once a step moves the point by less than a billionth of a
        // pixel: a webcam's mild distortion converges in a handful, and the depth test of
        // overlapping pieces casts a ray per pixel.
        for _ in 0..20 {
            let r2 = x * x + y * y;
            let radial = 1.0 + r2 * (k1 + r2 * (k2 + r2 * k3));
            let dx = 2.0 * p1 * x * y + p2 * (r2 + 2.0 * x * x);
            let dy = p1 * (r2 + 2.0 * y * y) + 2.0 * p2 * x * y;
            let (nx, ny) = ((xd - dx) / radial, (yd - dy) / radial);
            let moved = (nx - x).abs() + (ny - y).abs();
            (x, y) = (nx, ny);
            if moved < CONVERGED {
                break;
            }
        }
        Vector3::new(x, y, 1.0).normalize()
    }

    /// Where the ray through a pixel meets the horizontal plane z = `height_mm` (table frame).
    pub fn pixel_to_table_plane(&self, pixel: &Point2<f64>, height_mm: f64) -> Option<Point3<f64>> {
        let origin = self.centre_table();
        let direction = self.table_from_camera.rotation * self.ray_camera(pixel);
        if direction.z.abs() < 1e-9 {
            return None;
        }
        let t = (height_mm - origin.z) / direction.z;
        (t > 0.0).then(|| origin + direction * t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cv::isometry_from_rvec_tvec;
    use nalgebra::Matrix3;

    fn camera(distortion: [f64; 5]) -> Camera {
        Camera::new(
            Intrinsics {
                camera_matrix: Matrix3::new(914.0, 0.0, 639.5, 0.0, 914.0, 359.5, 0.0, 0.0, 1.0),
                distortion,
                image_size: [1280, 720],
            },
            isometry_from_rvec_tvec([0.8779, 2.6609, -0.8445], [59.86, -94.47, 628.14]),
        )
    }

    #[test]
    fn back_projection_inverts_projection_with_distortion() {
        let cam = camera([-0.2, 0.05, 0.001, -0.001, 0.0]);
        for p in [
            Point3::new(0.0, 0.0, 0.0),
            Point3::new(150.0, -40.0, 0.0),
            Point3::new(-90.0, 200.0, 20.0),
        ] {
            let pixel = cam.project_table(&p).expect("in front");
            let back = cam
                .pixel_to_table_plane(&pixel, p.z)
                .expect("meets the plane");
            assert!((back - p).norm() < 1e-3, "{p} -> {pixel} -> {back}");
        }
    }
}
