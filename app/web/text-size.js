// "A+ Letra maior": a toggle that enlarges all the page's text (the page is sized in rem,
// so one root size scales it all), remembered in localStorage across visits. Pressing it
// again returns to the normal size. The choice is not health data, and is kept for the
// site (unlike the questions, which stay in this tab's sessionStorage).

const STORAGE_KEY = "cartoes.letra.v1";
const LARGE = "grande";
const CLASS = "text-large";

function storage() {
  try {
    return window.localStorage;
  } catch {
    return null; // storage disabled: the toggle still works for this page
  }
}

export class TextSize {
  constructor(button) {
    this.button = button;
    let stored = null;
    try {
      stored = storage()?.getItem(STORAGE_KEY) ?? null;
    } catch {
      stored = null;
    }
    this.apply(stored === LARGE);
    button.addEventListener("click", () => this.set(!this.large));
  }

  get large() {
    return document.documentElement.classList.contains(CLASS);
  }

  apply(large) {
    document.documentElement.classList.toggle(CLASS, large);
    this.button.setAttribute("aria-pressed", large ? "true" : "false");
  }

  set(large) {
    this.apply(large);
    try {
      if (large) storage()?.setItem(STORAGE_KEY, LARGE);
      else storage()?.removeItem(STORAGE_KEY);
    } catch {
      // full or refused: the size holds for this page only
    }
  }
}
