/// The desk's pages, each one function of its data returning the whole document. Nothing
/// here reads the ledger or the request: the server fetches, these render.
public enum DeskPages {}
