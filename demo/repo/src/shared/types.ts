export interface Order { id: string }
