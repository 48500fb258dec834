import NIOCore
import NIOPosix
import NIOHTTP1
public enum _Placeholder {}
