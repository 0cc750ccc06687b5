"""Setuptools, beyond pyproject.toml: the package installs `review_harness-startup.pth` into
site-packages (a regular wheel through build_py, an editable install through editable_wheel), so
Python runs review_harness/_startup.py as it starts and Ctrl-C while `inspect eval` is still
importing ends with one line. The line does nothing when the package cannot be imported."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

PTH = "review_harness-startup.pth"
PTH_LINE = 'import sys; exec("try:\\n    import review_harness._startup\\nexcept Exception:\\n    pass")\n'


class build_py_with_pth(build_py):
    def run(self) -> None:
        super().run()
        Path(self.build_lib, PTH).write_text(PTH_LINE, encoding="utf-8")


cmdclass = {"build_py": build_py_with_pth}

try:
    from setuptools.command.editable_wheel import editable_wheel
except ImportError:  # setuptools older than 64: no editable wheels
    pass
else:
    class editable_wheel_with_pth(editable_wheel):
        def _create_wheel_file(self, bdist_wheel):  # the wheel setuptools builds, with the start-up file added
            from wheel.wheelfile import WheelFile

            wheel_path = super()._create_wheel_file(bdist_wheel)
            with WheelFile(wheel_path, "a") as wheel:
                wheel.writestr(PTH, PTH_LINE)
            return wheel_path

    cmdclass["editable_wheel"] = editable_wheel_with_pth

setup(cmdclass=cmdclass)
