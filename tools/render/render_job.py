"""Renders one koanscope render job (written by crates/vision/examples/sample_jobs.rs) with
Blender Cycles: hollow pyramids of models/pyramids.toml in translucent plastic, a procedural
table top, the 9x6 chessboard (25 mm squares) when the job has one, and a pinhole camera given
in OpenCV's convention (K, camera_from_table).

    blender -b --factory-startup -noaudio --python-exit-code 1 -P render_job.py -- JOB [SAMPLES] [THREADS]

Blender units are metres; the job is in millimetres.
"""

import json
import math
import os
import sys
import tomllib

import bpy
from mathutils import Matrix, Vector

MM = 0.001
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# Plastic colours (linear RGB). Crystal pieces let light through; black is opaque.
COLOURS = {
    "red": (0.75, 0.02, 0.03),
    "yellow": (0.85, 0.62, 0.02),
    "green": (0.03, 0.45, 0.10),
    "blue": (0.02, 0.12, 0.65),
    "black": (0.01, 0.01, 0.01),
    "orange": (0.85, 0.25, 0.02),
    "cyan": (0.02, 0.5, 0.6),
    "purple": (0.3, 0.03, 0.5),
    "white": (0.8, 0.8, 0.8),
    "clear": (0.9, 0.9, 0.9),
}


def args():
    argv = sys.argv[sys.argv.index("--") + 1 :]
    job_path = argv[0]
    samples = int(argv[1]) if len(argv) > 1 else 64
    threads = int(argv[2]) if len(argv) > 2 else 1
    return job_path, samples, threads


def matrix_mm(rows):
    m = Matrix(rows)
    for r in range(3):
        m[r][3] *= MM
    return m


def material(name, colour, transmission=0.0, roughness=0.4):
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    bsdf = mat.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = (*colour, 1.0)
    bsdf.inputs["Roughness"].default_value = roughness
    bsdf.inputs["Transmission"].default_value = transmission
    bsdf.inputs["IOR"].default_value = 1.49
    return mat


def plastic(colour_name, cache={}):
    if colour_name not in cache:
        opaque = colour_name == "black"
        cache[colour_name] = material(
            colour_name, COLOURS[colour_name], transmission=0.0 if opaque else 0.55, roughness=0.22
        )
    return cache[colour_name]


def pyramid_mesh(size, dims, wall, cache={}):
    """The hollow pyramid: outer faces, cavity faces and the base rim, in the piece frame."""
    if size in cache:
        return cache[size]
    half, height = dims["base_mm"] / 2.0, dims["height_mm"]
    slant = math.hypot(height, half)
    cavity_apex = height - wall * slant / half
    cavity_half = half - wall * slant / height
    corners = [(1, 1), (-1, 1), (-1, -1), (1, -1)]
    verts = [(0.0, 0.0, height * MM)]
    verts += [(sx * half * MM, sy * half * MM, 0.0) for sx, sy in corners]
    verts += [(0.0, 0.0, cavity_apex * MM)]
    verts += [(sx * cavity_half * MM, sy * cavity_half * MM, 0.0) for sx, sy in corners]
    faces = []
    for i in range(4):
        a, b = 1 + i, 1 + (i + 1) % 4
        ia, ib = 6 + i, 6 + (i + 1) % 4
        faces.append((a, b, 0))  # outer side, facing out
        faces.append((ib, ia, 5))  # cavity side, facing the axis
        faces.append((a, ia, ib, b))  # base rim, facing down
    mesh = bpy.data.meshes.new(f"pyramid-{size}")
    mesh.from_pydata(verts, [], faces)
    mesh.update()
    mesh.materials.append(None)  # one slot, filled per object
    cache[size] = mesh
    return mesh


# Table tops: the two ends of a noise's colour (linear RGB) and the finish's roughness. Wood
# also has its grain: the noise stretched along the boards, and its scale. Cloth is a fine,
# even weave, matte. Felt is the samples' dark grey.
WOODS = {
    "oak": ((2.0, 40.0, 1.0), 6.0, (0.30, 0.16, 0.07), (0.55, 0.34, 0.16), 0.45),
    "walnut": ((2.5, 50.0, 1.0), 7.0, (0.06, 0.03, 0.015), (0.16, 0.09, 0.05), 0.35),
    "pine": ((2.0, 35.0, 1.0), 5.0, (0.50, 0.36, 0.17), (0.72, 0.55, 0.30), 0.5),
    "cherry": ((2.0, 45.0, 1.0), 6.0, (0.30, 0.09, 0.04), (0.50, 0.18, 0.08), 0.4),
    "maple": ((2.0, 30.0, 1.0), 5.0, (0.62, 0.48, 0.30), (0.80, 0.64, 0.42), 0.45),
}
CLOTHS = {
    "felt": ((0.12, 0.14, 0.16), (0.20, 0.22, 0.25)),
    "baize": ((0.02, 0.16, 0.05), (0.04, 0.24, 0.08)),
    "linen": ((0.55, 0.52, 0.46), (0.66, 0.63, 0.57)),
    "slate": ((0.025, 0.027, 0.03), (0.045, 0.048, 0.05)),
    "burgundy": ((0.14, 0.015, 0.02), (0.22, 0.03, 0.035)),
    "melamine": ((0.68, 0.68, 0.66), (0.74, 0.74, 0.72)),
    "cork": ((0.30, 0.17, 0.07), (0.45, 0.28, 0.12)),
}


def table(kind):
    bpy.ops.mesh.primitive_plane_add(size=3.0, location=(0.1, 0.1, 0.0))
    top = bpy.context.active_object
    mat = bpy.data.materials.new(f"table-{kind}")
    mat.use_nodes = True
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = nodes["Principled BSDF"]
    coords = nodes.new("ShaderNodeTexCoord")
    mapping = nodes.new("ShaderNodeMapping")
    noise = nodes.new("ShaderNodeTexNoise")
    ramp = nodes.new("ShaderNodeValToRGB")
    links.new(coords.outputs["Object"], mapping.inputs["Vector"])
    links.new(mapping.outputs["Vector"], noise.inputs["Vector"])
    links.new(noise.outputs["Fac"], ramp.inputs["Fac"])
    links.new(ramp.outputs["Color"], bsdf.inputs["Base Color"])
    if kind in WOODS:
        grain, scale, low, high, roughness = WOODS[kind]
        mapping.inputs["Scale"].default_value = grain
        noise.inputs["Detail"].default_value = 8.0
    elif kind in CLOTHS:
        (low, high), scale, roughness = CLOTHS[kind], 400.0, 0.95
    else:
        raise SystemExit(f"render_job: no table top called {kind!r}")
    noise.inputs["Scale"].default_value = scale
    ramp.color_ramp.elements[0].color = (*low, 1.0)
    ramp.color_ramp.elements[1].color = (*high, 1.0)
    bsdf.inputs["Roughness"].default_value = roughness
    top.data.materials.append(mat)


def chessboard(table_from_board):
    """A printed 9x6-inner-corner board, 25 mm squares, on a white sheet with a margin.
    Inner corner (i, j) sits at (25 i, 25 j); the square at x, y in [0, 25] is black."""
    holder = bpy.data.objects.new("board", None)
    bpy.context.collection.objects.link(holder)
    holder.matrix_world = matrix_mm(table_from_board)
    white = material("paper", (0.8, 0.8, 0.78), roughness=0.7)
    black = material("ink", (0.015, 0.015, 0.015), roughness=0.6)
    verts, faces = [], []

    def quad(x0, y0, x1, y1, z):
        n = len(verts)
        verts.extend([(x0 * MM, y0 * MM, z * MM), (x1 * MM, y0 * MM, z * MM), (x1 * MM, y1 * MM, z * MM), (x0 * MM, y1 * MM, z * MM)])
        faces.append((n, n + 1, n + 2, n + 3))

    quad(-48.5, -42.5, 248.5, 167.5, 0.1)
    sheet = bpy.data.meshes.new("sheet")
    sheet.from_pydata(verts, [], faces)
    verts.clear()
    faces.clear()
    for a in range(10):
        for b in range(7):
            if (a + b) % 2 == 0:
                quad(-25 + 25 * a, -25 + 25 * b, 25 * a, 25 * b, 0.15)
    ink = bpy.data.meshes.new("squares")
    ink.from_pydata(verts, [], faces)
    for mesh, mat in ((sheet, white), (ink, black)):
        mesh.materials.append(mat)
        obj = bpy.data.objects.new(mesh.name, mesh)
        bpy.context.collection.objects.link(obj)
        obj.parent = holder


def camera(job):
    (fx, _, cx), (_, fy, cy), _ = job["K"]
    width, height = job["image_size"]
    data = bpy.data.cameras.new("webcam")
    data.sensor_fit = "HORIZONTAL"
    data.sensor_width = 36.0
    data.lens = fx * 36.0 / width
    data.shift_x = ((width - 1) / 2.0 - cx) / width
    data.shift_y = (cy - (height - 1) / 2.0) / width
    data.clip_start = 0.01
    cam = bpy.data.objects.new("webcam", data)
    bpy.context.collection.objects.link(cam)
    table_from_camera = matrix_mm(job["camera_from_table"]).inverted()
    # OpenCV's camera looks along +z with y down; Blender's along -z with y up.
    cam.matrix_world = table_from_camera @ Matrix.Diagonal((1.0, -1.0, -1.0, 1.0))
    bpy.context.scene.camera = cam


def lights(light):
    """A sun (`sun_*`) or square lamps (`lamps`: position and size in mm, colour, watts), and a
    sky of `world_colour` (a blue sky unless given) at `world_strength`."""
    if "sun_strength" in light:
        sun = bpy.data.lights.new("sun", type="SUN")
        sun.energy = light["sun_strength"]
        sun.angle = math.radians(4.0)
        obj = bpy.data.objects.new("sun", sun)
        bpy.context.collection.objects.link(obj)
        obj.rotation_euler = (0.0, math.radians(90.0 - light["sun_elevation_deg"]), math.radians(light["sun_azimuth_deg"]))
    for i, lamp in enumerate(light.get("lamps", [])):
        data = bpy.data.lights.new(f"lamp-{i}", type="AREA")
        data.size = lamp["size_mm"] * MM
        data.energy = lamp["watts"]
        data.color = lamp["colour"]
        obj = bpy.data.objects.new(f"lamp-{i}", data)
        bpy.context.collection.objects.link(obj)
        obj.location = [c * MM for c in lamp["at_mm"]]
        # An area light shines along its -z: aim it at the board's middle.
        aim = Vector((0.1, 0.06, 0.0)) - obj.location
        obj.rotation_euler = aim.to_track_quat("-Z", "Y").to_euler()
    world = bpy.data.worlds.new("sky")
    world.use_nodes = True
    background = world.node_tree.nodes["Background"]
    background.inputs["Color"].default_value = (*light.get("world_colour", (0.75, 0.85, 1.0)), 1.0)
    background.inputs["Strength"].default_value = light["world_strength"]
    bpy.context.scene.world = world


def main():
    job_path, samples, threads = args()
    with open(job_path) as f:
        job = json.load(f)
    with open(os.path.join(REPO, "models", "pyramids.toml"), "rb") as f:
        models = tomllib.load(f)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = samples
    scene.cycles.use_denoising = False
    scene.cycles.seed = job["seed"]
    scene.render.threads_mode = "FIXED"
    scene.render.threads = threads
    scene.render.resolution_x, scene.render.resolution_y = job["image_size"]
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = "JPEG"
    scene.render.image_settings.quality = 90
    scene.view_settings.view_transform = "Standard"

    table(job["table"])
    if job["board"] is not None:
        chessboard(job["board"])
    for i, piece in enumerate(job["pieces"]):
        mesh = pyramid_mesh(piece["size"], models[piece["size"]], models["wall_mm"])
        obj = bpy.data.objects.new(f"piece-{i}", mesh)
        bpy.context.collection.objects.link(obj)
        obj.matrix_world = matrix_mm(piece["table_from_piece"])
        # One mesh per size is shared, so the colour goes on the object, not the mesh.
        obj.material_slots[0].link = "OBJECT"
        obj.material_slots[0].material = plastic(piece["color"])
    camera(job)
    lights(job["light"])
    scene.render.filepath = os.path.join(os.path.dirname(os.path.abspath(job_path)), job["output"])
    bpy.ops.render.render(write_still=True)


main()
