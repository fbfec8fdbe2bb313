"""What Java overload choice knows of the JDK's own types: which JDK classes code passes where
one of their supertypes is declared (``new ByteArrayInputStream(b)`` for an ``InputStream``, a
``StringBuilder`` for an ``Appendable``), and the results of ``java.lang.Object``'s methods,
which no override can change (``x.toString()`` is a ``String`` whatever ``x`` is). Taken from
the JDK's class hierarchy; a type not listed here is no subtype of anything but itself and
``Object``, so an overload it cannot tell apart stays a guess (dangling)."""

from __future__ import annotations

from functools import cache

# A supertype -> its JDK subtypes that code passes for it (a subtype may be a supertype too).
_SUBTYPES: dict[str, str] = {
    "InputStream": (
        "ByteArrayInputStream FileInputStream FilterInputStream BufferedInputStream DataInputStream "
        "PushbackInputStream GZIPInputStream ZipInputStream InflaterInputStream CheckedInputStream "
        "ObjectInputStream SequenceInputStream PipedInputStream"
    ),
    "FilterInputStream": "BufferedInputStream DataInputStream PushbackInputStream InflaterInputStream",
    "InflaterInputStream": "GZIPInputStream ZipInputStream",
    "OutputStream": (
        "ByteArrayOutputStream FileOutputStream FilterOutputStream BufferedOutputStream DataOutputStream "
        "PrintStream GZIPOutputStream ZipOutputStream DeflaterOutputStream ObjectOutputStream PipedOutputStream"
    ),
    "Reader": (
        "StringReader BufferedReader LineNumberReader InputStreamReader FileReader CharArrayReader "
        "PushbackReader FilterReader PipedReader"
    ),
    "Writer": (
        "StringWriter BufferedWriter OutputStreamWriter FileWriter PrintWriter CharArrayWriter FilterWriter PipedWriter"
    ),
    "Iterable": "Collection",
    "Collection": "List Set Queue",
    "List": "ArrayList LinkedList Vector Stack CopyOnWriteArrayList",
    "Set": "HashSet LinkedHashSet TreeSet SortedSet NavigableSet EnumSet CopyOnWriteArraySet",
    "Queue": "Deque PriorityQueue ArrayBlockingQueue LinkedBlockingQueue ConcurrentLinkedQueue",
    "Deque": "ArrayDeque LinkedList ConcurrentLinkedDeque LinkedBlockingDeque",
    "Map": "HashMap LinkedHashMap TreeMap SortedMap NavigableMap ConcurrentHashMap Hashtable IdentityHashMap "
    "WeakHashMap EnumMap Properties",
    "CharSequence": "String StringBuilder StringBuffer CharBuffer",
    "Appendable": "StringBuilder StringBuffer Writer PrintStream CharBuffer",
    "Number": "Integer Long Short Byte Double Float BigInteger BigDecimal AtomicInteger AtomicLong",
    "Throwable": "Exception Error",
    "Exception": "RuntimeException IOException InterruptedException ReflectiveOperationException",
    "IOException": "FileNotFoundException UnsupportedEncodingException EOFException",
    "RuntimeException": "IllegalArgumentException IllegalStateException NullPointerException "
    "UnsupportedOperationException IndexOutOfBoundsException ClassCastException ArithmeticException UncheckedIOException",
}

# java.lang.Object's methods whose result type every class keeps.
OBJECT_RESULTS = {"toString": "String", "hashCode": "int", "equals": "boolean", "getClass": "Class"}


@cache
def _descendants(supertype: str) -> frozenset[str]:
    out: set[str] = set()
    for sub in _SUBTYPES.get(supertype, "").split():
        if sub not in out:
            out.add(sub)
            out |= _descendants(sub)
    return frozenset(out)


def is_jdk_subtype(name: str, supertype: str) -> bool:
    """Whether the JDK class ``name`` (a simple name) is ``supertype`` or one of its subtypes."""
    return name == supertype or name in _descendants(supertype)
