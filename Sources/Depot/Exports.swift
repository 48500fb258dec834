@_exported import DepotPromise
@_exported import HTTPTypes
