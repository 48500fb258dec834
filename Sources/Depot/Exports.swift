@_exported import DepotPromise
