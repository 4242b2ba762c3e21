"""Reading a numpy ``.npz`` file that may be hostile: every member's declared size, shape
and dtype are checked before a byte of its data is read, so nothing a file says makes the
reader allocate more than the caller allows.

What is refused (:class:`NpzError`, a ValueError saying what and where):

* not a zip; a zip whose central directory lists more than :data:`MAX_MEMBERS` members or
  takes more than :data:`MAX_DIRECTORY_BYTES` (both read from the end record before
  :mod:`zipfile` builds an object per entry), or a Zip64 directory;
* a member compressed otherwise than stored or deflated, or whose header declares more data
  than the member can inflate to (:meth:`NpzReader.header`: checked before a caller builds
  anything for it);
* a member that is not a ``.npy`` array, has a corrupt header, or holds Python objects
  (``dtype=object`` is pickle: refused from its header, never unpickled);
* a member whose shape or dtype differs from what the caller expects, or whose data would
  exceed ``max_bytes`` — checked from the header, before its data is inflated;
* data that does not inflate to exactly the declared size (truncation, a bad checksum, a
  zip bomb declaring a small size: :mod:`zipfile` stops at the declared size and checks the
  CRC, and the reader asks for no more than the header's byte count).
"""

from __future__ import annotations

import contextlib
import io
import math
import struct
import zipfile
from collections.abc import Iterator
from types import TracebackType
from typing import IO

import numpy as np
import numpy.typing as npt
from numpy.lib import format as npy_format

MAX_MEMBERS = 256
"""Most members a file may list (a saved solve has about 20)."""
MAX_HEADER = 10_000
"""Longest ``.npy`` header read (bytes), numpy's own default."""
MAX_DIRECTORY_BYTES = MAX_MEMBERS * 1024
"""Largest zip central directory read (bytes): :data:`MAX_MEMBERS` entries of up to 1 KB."""
DEFLATE_RATIO = 1032
"""Most bytes one byte of deflated data inflates to (deflate's limit)."""
_END_RECORD = b"PK\x05\x06"


class NpzError(ValueError):
    """A file or member the reader refuses; the message says which and why."""


def _member_count(data: bytes | bytearray | memoryview) -> int:
    """Members the zip's end-of-central-directory record lists (the record is within the
    last 65,557 bytes: 22 bytes and a comment of at most 65,535), once the record's
    directory size is checked too: :mod:`zipfile` reads entries for as many bytes as the
    record says the directory holds, whatever count it gives."""
    tail = bytes(data[-65_557:])
    at = tail.rfind(_END_RECORD)
    if at < 0 or at + 22 > len(tail):
        raise NpzError("corrupt .npz file (no zip end record)")
    total, size = struct.unpack("<HI", tail[at + 10 : at + 16])
    if total > MAX_MEMBERS:
        raise NpzError(f"the file lists {total:,} members; a saved solve has at most "
                       f"{MAX_MEMBERS}")  # fmt: skip
    if size == 0xFFFFFFFF:  # (a file under 2 GiB never needs Zip64's)
        raise NpzError("the zip's directory is a Zip64 one; a saved solve never needs it")
    if size > MAX_DIRECTORY_BYTES:
        raise NpzError(f"the zip's directory takes {size:,} bytes; a saved solve's takes at "
                       f"most {MAX_DIRECTORY_BYTES:,}")  # fmt: skip
    return int(total)


class NpzReader:
    """Members of an ``.npz`` held in memory, read one at a time under checks.

    Use as a context manager; :meth:`read` returns a new C-contiguous array."""

    def __init__(self, data: bytes | bytearray | memoryview) -> None:
        _member_count(data)
        try:
            self._zip = zipfile.ZipFile(io.BytesIO(data))
            infos = self._zip.infolist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError, EOFError) as exc:
            raise NpzError(f"corrupt .npz file ({exc})") from None
        if len(infos) > MAX_MEMBERS:
            self._zip.close()
            raise NpzError(f"the file holds more than {MAX_MEMBERS} members")
        self._members = {
            info.filename.removesuffix(".npy"): info
            for info in infos
            if info.filename.endswith(".npy")
        }

    def __enter__(self) -> NpzReader:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._zip.close()

    @property
    def names(self) -> frozenset[str]:
        """Array names in the file (member names without ``.npy``)."""
        return frozenset(self._members)

    def header(self, name: str) -> tuple[tuple[int, ...], np.dtype]:
        """(shape, dtype) of array ``name`` from its header alone (no data inflated); the
        member must be able to hold the data the header declares."""
        with self._member(name) as f:
            shape, _fortran, dtype = self._header(f, name)
        self._holds(name, math.prod(shape) * dtype.itemsize)
        return shape, dtype

    def _holds(self, name: str, nbytes: int) -> None:
        """:class:`NpzError` unless member ``name`` can inflate to ``nbytes`` of data: its
        declared size, and what its compressed bytes can give (stored: as many; deflated:
        :data:`DEFLATE_RATIO` times as many). A header claiming an array its file cannot
        hold is refused before anything is built for it."""
        info = self._members[name]
        if info.compress_type == zipfile.ZIP_STORED:
            most = info.compress_size
        elif info.compress_type == zipfile.ZIP_DEFLATED:
            most = info.compress_size * DEFLATE_RATIO
        else:
            raise NpzError(f"array {name!r}: compression method {info.compress_type}; a "
                           "saved solve's members are stored or deflated")  # fmt: skip
        if nbytes > min(most, info.file_size):
            raise NpzError(f"array {name!r} declares {nbytes:,} bytes of data; its member "
                           f"holds at most {min(most, info.file_size):,}")  # fmt: skip

    def read(
        self,
        name: str,
        *,
        max_bytes: int,
        shape: tuple[int, ...] | None = None,
        dtype: np.dtype | None = None,
        kind: str | None = None,
    ) -> npt.NDArray:
        """Array ``name``: its header must give ``shape`` and ``dtype`` (or a dtype of
        ``kind``, e.g. ``"U"`` for text) when given, and at most ``max_bytes`` of data;
        only then are those bytes inflated."""
        with self._member(name) as f:
            head_shape, fortran, head_dtype = self._header(f, name)
            if head_dtype.hasobject:
                raise NpzError(
                    f"array {name!r} holds Python objects (pickle): refused, never unpickled"
                )
            if shape is not None and head_shape != shape:
                raise NpzError(f"array {name!r} has shape {head_shape}, expected {shape}")
            if dtype is not None and head_dtype != dtype:
                raise NpzError(f"array {name!r} is {head_dtype}, expected {dtype}")
            if kind is not None and head_dtype.kind != kind:
                raise NpzError(f"array {name!r} is {head_dtype}, expected kind {kind!r}")
            nbytes = math.prod(head_shape) * head_dtype.itemsize
            if nbytes > max_bytes:
                raise NpzError(
                    f"array {name!r} declares {nbytes:,} bytes; at most {max_bytes:,} here"
                )
            self._holds(name, nbytes)
            buf = f.read(nbytes)
        if len(buf) != nbytes:
            raise NpzError(f"array {name!r}: {len(buf):,} bytes of data, expected {nbytes:,}")
        arr = np.frombuffer(buf, dtype=head_dtype)
        out = arr.reshape(head_shape, order="F" if fortran else "C")
        return out.copy(order="C")

    @contextlib.contextmanager
    def _member(self, name: str) -> Iterator[IO[bytes]]:
        """Array ``name``'s member opened for reading; what reading it raises becomes
        :class:`NpzError`: truncated or corrupt data, a bad CRC (BadZipFile), a compression or
        encryption zipfile does not read (NotImplementedError, RuntimeError), and what each
        decompressor raises (zlib.error, lzma.LZMAError, OSError, EOFError)."""
        info = self._members.get(name)
        if info is None:
            raise NpzError(f"missing array {name!r}")
        try:
            with self._zip.open(info) as f:
                yield f
        except NpzError:
            raise
        except Exception as exc:
            raise NpzError(f"array {name!r}: corrupt data ({type(exc).__name__})") from None

    @staticmethod
    def _header(f: IO[bytes], name: str) -> tuple[tuple[int, ...], bool, np.dtype]:
        """(shape, fortran order, dtype) from a ``.npy`` header, or :class:`NpzError`."""
        try:
            version = npy_format.read_magic(f)
            if version == (1, 0):
                head = npy_format.read_array_header_1_0(f, max_header_size=MAX_HEADER)
            elif version == (2, 0):
                head = npy_format.read_array_header_2_0(f, max_header_size=MAX_HEADER)
            else:
                raise NpzError(f"array {name!r}: unknown .npy version {version}")
        except NpzError:
            raise
        except Exception as exc:  # numpy parses the header with tokenize and literal_eval,
            # which raise ValueError, SyntaxError, TokenError, RecursionError, ...
            raise NpzError(f"array {name!r}: corrupt header ({type(exc).__name__})") from None
        shape, fortran, dtype = head
        if not all(isinstance(n, int) and n >= 0 for n in shape):
            raise NpzError(f"array {name!r}: corrupt header (shape {shape!r})")
        return tuple(shape), bool(fortran), np.dtype(dtype)
