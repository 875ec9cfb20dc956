"""Only what pyproject.toml cannot say: the wheel is a platform wheel (it holds a shared library
and an executable for this OS and CPU, so it installs to platlib and carries the platform tag)
but is tied to no Python version or ABI, since the library is loaded with ctypes: its tag is
py3-none-<platform>, e.g. py3-none-linux_x86_64."""

from setuptools import setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.dist import Distribution


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True  # not pure: platlib, platform tag


class PlatformWheel(bdist_wheel):
    def get_tag(self):
        _, _, platform = super().get_tag()
        return "py3", "none", platform


setup(distclass=BinaryDistribution, cmdclass={"bdist_wheel": PlatformWheel})
